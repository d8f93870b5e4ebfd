import { Inject, Injectable } from '@nestjs/common';
import { ProjectSources, SourceChunk, SourceDocument, SourceEdge, SourceNode, Extraction } from '@strata/domain/briefs';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { readPageMap } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';

type FastStore = Pick<SqliteGraphStore, 'stmt'>;
// whole sets per statement on the embedded store (a Project admits thousands of chunks)
const EDGES_IN_SQL = `SELECT doc FROM edges INDEXED BY edges_in
  WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL`;
const NODES_SQL = `SELECT doc FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;

/** Never among a Project's extracted nodes (REFERENCE §12.1 Nodes(P)). */
const NOT_SOURCES = new Set(['Document', 'Chunk', 'Article', 'Space']);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * Loads a Project's admitted sources (REFERENCE §12.1), recomputed on every call: Docs(P) →
 * Chunks(P) → Nodes(P) → Edges(P), with the admitting edges (for the fingerprint and citations).
 */
@Injectable()
export class ProjectSourcesService {
  constructor(@Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel) {}

  private fast(): FastStore | null {
    return typeof (this.graph as Partial<FastStore>).stmt === 'function' ? (this.graph as unknown as FastStore) : null;
  }

  /** Live edges of a type into any of `targets`. */
  private async edgesInto(org: string, targets: string[], edgeType: string): Promise<EdgeRecord[]> {
    if (!targets.length) return [];
    const fast = this.fast();
    if (fast) return (fast.stmt(EDGES_IN_SQL).all(org, JSON.stringify(targets), edgeType) as { doc: string }[]).map((r) => JSON.parse(r.doc) as EdgeRecord);
    const out: EdgeRecord[] = [];
    for (const t of targets) out.push(...(await this.graph.listEdges(org, { to_uid: t, edge_types: [edgeType] })));
    return out;
  }

  private async liveNodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    if (!uids.length) return new Map();
    const unique = [...new Set(uids)];
    const fast = this.fast();
    if (fast) {
      const out = new Map<string, NodeRecord>();
      for (const r of fast.stmt(NODES_SQL).all(org, JSON.stringify(unique)) as { doc: string }[]) {
        const n = JSON.parse(r.doc) as NodeRecord;
        out.set(n.uid, n);
      }
      return out;
    }
    const found = await this.graph.getNodes(org, unique);
    for (const [u, n] of found) if (n.tombstone_at !== null) found.delete(u);
    return found;
  }

  async load(org: string, projectUid: string): Promise<ProjectSources> {
    const admitting: { uid: string; version: number }[] = [];
    const partOf = await this.edgesInto(org, [projectUid], 'PartOfProject');
    const docNodes = await this.liveNodes(org, partOf.map((e) => e.from_uid));
    const documents = new Map<string, SourceDocument>();
    for (const d of docNodes.values())
      if (d.node_type === 'Document')
        documents.set(d.uid, { uid: d.uid, version: d.version, title: str(d.props.title) ?? d.label, page_map: readPageMap(d.props.page_offsets) });
    for (const e of partOf) if (documents.has(e.from_uid)) admitting.push({ uid: e.uid, version: e.version });

    const chunkOf = await this.edgesInto(org, [...documents.keys()], 'ChunkOf');
    const chunkNodes = await this.liveNodes(org, chunkOf.map((e) => e.from_uid));
    const chunks = new Map<string, SourceChunk>();
    for (const e of chunkOf) {
      const c = chunkNodes.get(e.from_uid);
      if (!c || c.node_type !== 'Chunk') continue;
      admitting.push({ uid: e.uid, version: e.version });
      if (chunks.has(c.uid)) continue;
      chunks.set(c.uid, {
        uid: c.uid,
        version: c.version,
        document_uid: e.to_uid,
        content: str(c.props.content) ?? '',
        chunk_index: num(c.props.chunk_index) ?? 0,
        char_offset_start: num(c.props.char_offset_start),
      });
    }

    const extractedFrom = await this.edgesInto(org, [...chunks.keys()], 'ExtractedFrom');
    const nodeRecords = await this.liveNodes(org, extractedFrom.map((e) => e.from_uid));
    const nodes = new Map<string, SourceNode>();
    for (const n of nodeRecords.values()) {
      if (NOT_SOURCES.has(n.node_type)) continue;
      nodes.set(n.uid, { uid: n.uid, version: n.version, node_type: n.node_type, label: n.label, props: n.props, confidence: n.confidence, created_at: n.created_at });
    }
    const extractions = new Map<string, Extraction[]>();
    for (const e of extractedFrom) {
      if (!nodes.has(e.from_uid)) continue;
      let l = extractions.get(e.from_uid);
      if (!l) extractions.set(e.from_uid, (l = []));
      l.push({ edge_uid: e.uid, edge_version: e.version, chunk_uid: e.to_uid, location: e.props.location });
    }
    const uids = [...nodes.keys()];
    const edges: SourceEdge[] =
      uids.length > 0
        ? (await this.graph.listEdges(org, { among: uids })).map((e) => ({
            uid: e.uid,
            version: e.version,
            edge_type: e.edge_type,
            from_uid: e.from_uid,
            to_uid: e.to_uid,
            props: e.props,
            created_at: e.created_at,
          }))
        : [];
    return { project_uid: projectUid, documents, chunks, nodes, edges, admitting, extractions };
  }

  /** The chunk nodes named by a correction (live or not), for its 404s. */
  nodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    return this.graph.getNodes(org, [...new Set(uids)]);
  }

  node(org: string, uid: string): Promise<NodeRecord | null> {
    return this.graph.getNode(org, uid);
  }
}
