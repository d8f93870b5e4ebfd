import { Inject, Injectable } from '@nestjs/common';
import { NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';

/** The SQLite adapter's prepared-statement cache, when the read model is the embedded one. */
type FastStore = Pick<SqliteGraphStore, 'stmt'>;
const fastStore = (g: GraphReadModel): FastStore | null => (typeof (g as Partial<FastStore>).stmt === 'function' ? (g as unknown as FastStore) : null);

// a whole set per statement (uids as one JSON array), answered from the edges_in and primary-key indexes
const SOURCES_SQL = `SELECT from_uid FROM edges INDEXED BY edges_in
  WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL`;
const HEADS_SQL = `SELECT uid, node_type FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;

/** Types that are never among a Project's extracted nodes (REFERENCE §12.1). */
const NOT_EXTRACTED_SOURCES = new Set(['Document', 'Chunk', 'Article', 'Space']);

/** What `sourceDocuments` needs of the caller's read scope. */
export interface SourceScope {
  readonly org: string;
  allows(uid: string): boolean;
}

export interface SourceDocument {
  uid: string;
  title: string;
  ingested_by?: string | null;
  ingested_by_name?: string | null;
  occurred_at?: string | null;
}

/**
 * Provenance over the ingestion chain (REFERENCE §5.1):
 * node → ExtractedFrom → Chunk → ChunkOf → Document → PartOfProject → Project.
 */
@Injectable()
export class ProvenanceService {
  constructor(@Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel) {}

  /**
   * What a Project-scoped credential sees: the Project itself, plus its provenance (below).
   */
  async admittedBy(org: string, projectUid: string): Promise<Set<string>> {
    return (await this.withProvenanceIn(org, projectUid)).add(projectUid);
  }

  /**
   * The `project_uid` filter of searches and retrieval (REFERENCE §5.1): the Project's live
   * admitted Documents, their live Chunks and the nodes extracted from those Chunks. The
   * Project node itself is not among them unless it too was extracted from such a Chunk.
   */
  async withProvenanceIn(org: string, projectUid: string): Promise<Set<string>> {
    const out = new Set<string>();
    const docs = (await this.liveHeads(org, await this.sourcesOf(org, [projectUid], 'PartOfProject'))).map((h) => h.uid);
    const chunks = (await this.liveHeads(org, await this.sourcesOf(org, docs, 'ChunkOf'))).map((h) => h.uid);
    for (const u of docs) out.add(u);
    for (const u of chunks) out.add(u);
    // §12.1 Nodes(P): Documents, Chunks, Articles and Spaces are never admitted as extracted nodes
    for (const h of await this.liveHeads(org, await this.sourcesOf(org, chunks, 'ExtractedFrom')))
      if (!NOT_EXTRACTED_SOURCES.has(h.node_type)) out.add(h.uid);
    return out;
  }

  /**
   * The `from_uid`s of live edges of a type into any of `targets`. On the embedded store one
   * statement for the whole set (a Project admits thousands of chunks; one query per chunk
   * made every confined read slow); elsewhere one port query per target.
   */
  private async sourcesOf(org: string, targets: string[], edgeType: string): Promise<string[]> {
    if (!targets.length) return [];
    const fast = fastStore(this.graph);
    if (fast) {
      const rows = fast.stmt(SOURCES_SQL).all(org, JSON.stringify(targets), edgeType) as { from_uid: string }[];
      return [...new Set(rows.map((r) => r.from_uid))];
    }
    const out = new Set<string>();
    for (const t of targets) for (const e of await this.graph.listEdges(org, { to_uid: t, edge_types: [edgeType] })) out.add(e.from_uid);
    return [...out];
  }

  /** Of these uids, the live nodes with their types (read from columns on the embedded store). */
  private async liveHeads(org: string, uids: string[]): Promise<{ uid: string; node_type: string }[]> {
    if (!uids.length) return [];
    const fast = fastStore(this.graph);
    if (fast) return fast.stmt(HEADS_SQL).all(org, JSON.stringify(uids)) as { uid: string; node_type: string }[];
    const found = await this.graph.getNodes(org, uids);
    return [...found.values()].filter((n) => n.tombstone_at === null).map((n) => ({ uid: n.uid, node_type: n.node_type }));
  }

  /**
   * Source documents of each node (Documents are their own source; Chunks point at theirs), as
   * the caller sees them: a Chunk or Document outside its scope is absent (§13.1), so it never
   * names one, nor traces a chain through one.
   */
  async sourceDocuments(scope: SourceScope, nodes: NodeRecord[]): Promise<Map<string, SourceDocument[]>> {
    const org = scope.org;
    const out = new Map<string, SourceDocument[]>();
    const docCache = new Map<string, NodeRecord | null>();
    const chunkDocs = new Map<string, string[]>();
    const doc = async (uid: string) => {
      if (!docCache.has(uid)) {
        const d = await this.graph.getNode(org, uid);
        docCache.set(uid, d && d.tombstone_at === null && d.node_type === 'Document' && scope.allows(uid) ? d : null);
      }
      return docCache.get(uid)!;
    };
    const docsOfChunk = async (chunk: string) => {
      let ds = chunkDocs.get(chunk);
      if (!ds) {
        ds = scope.allows(chunk) ? (await this.graph.listEdges(org, { from_uid: chunk, edge_types: ['ChunkOf'] })).map((e) => e.to_uid) : [];
        chunkDocs.set(chunk, ds);
      }
      return ds;
    };
    for (const n of nodes) {
      const docUids = new Set<string>();
      if (n.node_type === 'Document') docUids.add(n.uid);
      else if (n.node_type === 'Chunk') for (const d of await docsOfChunk(n.uid)) docUids.add(d);
      else
        for (const e of await this.graph.listEdges(org, { from_uid: n.uid, edge_types: ['ExtractedFrom'] }))
          for (const d of await docsOfChunk(e.to_uid)) docUids.add(d);
      const list: SourceDocument[] = [];
      for (const u of [...docUids].sort()) {
        const d = await doc(u);
        if (d) list.push(describeDocument(d));
      }
      out.set(n.uid, list);
    }
    return out;
  }
}

function describeDocument(d: NodeRecord): SourceDocument {
  const p = d.props as Record<string, unknown>;
  const out: SourceDocument = { uid: d.uid, title: typeof p.title === 'string' && p.title ? p.title : d.label };
  if (typeof p.ingested_by === 'string') out.ingested_by = p.ingested_by;
  if (typeof p.ingested_by_name === 'string') out.ingested_by_name = p.ingested_by_name;
  if (typeof p.occurred_at === 'string') out.occurred_at = p.occurred_at;
  return out;
}
