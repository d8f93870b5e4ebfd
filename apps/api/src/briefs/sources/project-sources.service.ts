import { Inject, Injectable } from '@nestjs/common';
import { ProjectSources, SourceChunk, SourceDocument, SourceEdge, SourceIdentities, SourceNode, Extraction, sourceFingerprint } from '@strata/domain/briefs';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { readPageMap } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { EdgeRow, NodeRow, SourceRowReader, SourceTraversal, identitiesOf, traverseSources } from './source-traversal';

type FastStore = Pick<SqliteGraphStore, 'stmt'>;
// whole sets per statement on the embedded store (a Project admits thousands of chunks), and
// columns only: the traversal and the fingerprint never need the records' JSON
const EDGES_IN_SQL = `SELECT uid, version, from_uid, to_uid, edge_type FROM edges INDEXED BY edges_in
  WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND edge_type = ? AND tombstone_at IS NULL`;
const EDGES_OUT_SQL = `SELECT uid, version, from_uid, to_uid, edge_type FROM edges INDEXED BY edges_out
  WHERE org = ? AND from_uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;
const NODE_ROWS_SQL = `SELECT uid, version, node_type FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;
const NODE_DOCS_SQL = `SELECT doc FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;
const EDGE_DOCS_SQL = `SELECT doc FROM edges WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;

const PROJECTS_CACHED = 32;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** Column-only rows from the embedded store. */
function columnReader(fast: FastStore, org: string): SourceRowReader<NodeRow, EdgeRow> {
  return {
    edgesInto: async (targets, edgeType) => (targets.length ? (fast.stmt(EDGES_IN_SQL).all(org, JSON.stringify(targets), edgeType) as EdgeRow[]) : []),
    liveNodes: async (uids) => {
      const out = new Map<string, NodeRow>();
      if (!uids.length) return out;
      for (const r of fast.stmt(NODE_ROWS_SQL).all(org, JSON.stringify([...new Set(uids)])) as NodeRow[]) out.set(r.uid, r);
      return out;
    },
    edgesAmong: async (uids) => {
      const set = new Set(uids);
      return (fast.stmt(EDGES_OUT_SQL).all(org, JSON.stringify(uids)) as EdgeRow[]).filter((e) => set.has(e.to_uid));
    },
  };
}

/** Whole records from any graph read model (servers mode). */
function recordReader(graph: GraphReadModel, org: string): SourceRowReader<NodeRecord, EdgeRecord> {
  return {
    edgesInto: async (targets, edgeType) => {
      const out: EdgeRecord[] = [];
      for (const t of targets) out.push(...(await graph.listEdges(org, { to_uid: t, edge_types: [edgeType] })));
      return out;
    },
    liveNodes: async (uids) => {
      if (!uids.length) return new Map();
      const found = await graph.getNodes(org, [...new Set(uids)]);
      for (const [u, n] of found) if (n.tombstone_at !== null) found.delete(u);
      return found;
    },
    edgesAmong: (uids) => graph.listEdges(org, { among: uids }),
  };
}

/**
 * Loads a Project's admitted sources (REFERENCE §12.1), recomputed on every call: Docs(P) →
 * Chunks(P) → Nodes(P) → Edges(P), with the admitting edges (for the fingerprint and citations).
 * The traversal is one (source-traversal.ts); `identities` stops there, `load` then reads the
 * records generation needs.
 */
@Injectable()
export class ProjectSourcesService {
  /** identities per Project (and their fingerprint once asked), with the applied log position they were read at */
  private readonly cached = new Map<string, { mark: number; ids: SourceIdentities; fingerprint?: string }>();

  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(EMBEDDED_STORAGE) private readonly embedded: EmbeddedStorage | null = null,
  ) {}

  /**
   * On the embedded store every graph change is applied in this process and moves the applied
   * log position, so identities read at a position hold until it moves. None while a unit of
   * work's transaction is open: its uncommitted rows are visible on the shared connection and
   * may roll back.
   */
  private mark(): number | null {
    const e = this.embedded;
    if (!e || e.projections.inTransaction) return null;
    return e.runner.appliedPosition;
  }

  private fast(): FastStore | null {
    return typeof (this.graph as Partial<FastStore>).stmt === 'function' ? (this.graph as unknown as FastStore) : null;
  }

  /** What the fingerprint and the hidden check read, without any record's content. */
  async identities(org: string, projectUid: string): Promise<SourceIdentities> {
    return (await this.entry(org, projectUid)).ids;
  }

  /**
   * The identities with their fingerprint (§12.4), hashed once per log position: sorting and
   * hashing every admitted uid was most of a `GET …/brief` on a large Project.
   */
  async fingerprinted(org: string, projectUid: string): Promise<{ ids: SourceIdentities; fingerprint: string }> {
    const e = await this.entry(org, projectUid);
    e.fingerprint ??= sourceFingerprint(e.ids);
    return { ids: e.ids, fingerprint: e.fingerprint };
  }

  private async entry(org: string, projectUid: string): Promise<{ mark: number; ids: SourceIdentities; fingerprint?: string }> {
    const key = `${org}\u0000${projectUid}`;
    const mark = this.mark();
    const hit = this.cached.get(key);
    if (hit && mark !== null && hit.mark === mark) return hit;
    const fast = this.fast();
    const t = fast ? await traverseSources(columnReader(fast, org), projectUid) : await traverseSources(recordReader(this.graph, org), projectUid);
    const entry = { mark: mark ?? -1, ids: identitiesOf(t) };
    if (mark !== null && this.mark() === mark) {
      this.cached.delete(key);
      this.cached.set(key, entry);
      // a few Projects' identities at most: the oldest entry goes
      if (this.cached.size > PROJECTS_CACHED) this.cached.delete(this.cached.keys().next().value!);
    }
    return entry;
  }

  async load(org: string, projectUid: string): Promise<ProjectSources> {
    const fast = this.fast();
    if (!fast) {
      const t = await traverseSources(recordReader(this.graph, org), projectUid);
      return assemble(projectUid, t, (u) => t.documents.get(u) ?? t.chunks.get(u)?.node ?? t.nodes.get(u), t.edges);
    }
    const t = await traverseSources(columnReader(fast, org), projectUid);
    const nodeUids = [...t.documents.keys(), ...t.chunks.keys(), ...t.nodes.keys()];
    const nodeDocs = new Map<string, NodeRecord>();
    if (nodeUids.length)
      for (const r of fast.stmt(NODE_DOCS_SQL).all(org, JSON.stringify(nodeUids)) as { doc: string }[]) {
        const n = JSON.parse(r.doc) as NodeRecord;
        nodeDocs.set(n.uid, n);
      }
    const edges = t.edges.length
      ? (fast.stmt(EDGE_DOCS_SQL).all(org, JSON.stringify(t.edges.map((e) => e.uid))) as { doc: string }[]).map((r) => JSON.parse(r.doc) as EdgeRecord)
      : [];
    // as the read model lists them
    edges.sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
    // the extraction selectors are the only edge props generation reads
    const extraction = new Map<string, EdgeRecord>();
    if (t.extractedFrom.length)
      for (const r of fast.stmt(EDGE_DOCS_SQL).all(org, JSON.stringify(t.extractedFrom.map((e) => e.uid))) as { doc: string }[]) {
        const e = JSON.parse(r.doc) as EdgeRecord;
        extraction.set(e.uid, e);
      }
    return assemble(projectUid, t, (u) => nodeDocs.get(u), edges, (u) => extraction.get(u));
  }

  /** The chunk nodes named by a correction (live or not), for its 404s. */
  nodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    return this.graph.getNodes(org, [...new Set(uids)]);
  }

  node(org: string, uid: string): Promise<NodeRecord | null> {
    return this.graph.getNode(org, uid);
  }
}

/**
 * ProjectSources from a traversal and the records it names. Versions come from the traversal's
 * rows, so the fingerprint of the result equals that of `identities` at the same position.
 */
function assemble(
  projectUid: string,
  t: SourceTraversal<NodeRow, EdgeRow>,
  node: (uid: string) => NodeRecord | undefined,
  edgeRecords: EdgeRecord[],
  extraction?: (uid: string) => EdgeRecord | undefined,
): ProjectSources {
  const documents = new Map<string, SourceDocument>();
  for (const [u, row] of t.documents) {
    const d = node(u);
    documents.set(u, { uid: u, version: row.version, title: (d && str(d.props.title)) ?? d?.label ?? '', page_map: readPageMap(d?.props.page_offsets) });
  }
  const chunks = new Map<string, SourceChunk>();
  for (const [u, { node: row, document_uid }] of t.chunks) {
    const c = node(u);
    chunks.set(u, {
      uid: u,
      version: row.version,
      document_uid,
      content: (c && str(c.props.content)) ?? '',
      chunk_index: (c && num(c.props.chunk_index)) ?? 0,
      char_offset_start: c ? num(c.props.char_offset_start) : null,
    });
  }
  const nodes = new Map<string, SourceNode>();
  for (const [u, row] of t.nodes) {
    const n = node(u);
    nodes.set(u, { uid: u, version: row.version, node_type: row.node_type, label: n?.label ?? '', props: n?.props ?? {}, confidence: n?.confidence ?? 0, created_at: n?.created_at ?? 0 });
  }
  const extractions = new Map<string, Extraction[]>();
  for (const e of t.extractedFrom) {
    let l = extractions.get(e.from_uid);
    if (!l) extractions.set(e.from_uid, (l = []));
    const rec = extraction ? extraction(e.uid) : (e as EdgeRecord);
    l.push({ edge_uid: e.uid, edge_version: e.version, chunk_uid: e.to_uid, location: rec?.props.location });
  }
  const edges: SourceEdge[] = edgeRecords.map((e) => ({
    uid: e.uid,
    version: e.version,
    edge_type: e.edge_type,
    from_uid: e.from_uid,
    to_uid: e.to_uid,
    props: e.props,
    created_at: e.created_at,
  }));
  const admitting = [...t.partOf, ...t.chunkOf].map((e) => ({ uid: e.uid, version: e.version }));
  return { project_uid: projectUid, documents, chunks, nodes, edges, admitting, extractions };
}
