import { SourceIdentities } from './project-sources';

/** What the traversal needs of a node: identity and type (to filter the sets). */
export interface NodeRow {
  uid: string;
  version: number;
  node_type: string;
}

/** What the traversal needs of an edge: identity and endpoints. */
export interface EdgeRow {
  uid: string;
  version: number;
  from_uid: string;
  to_uid: string;
  edge_type: string;
}

/**
 * Reads live rows for the traversal. The embedded store answers with columns only; the generic
 * read model answers with whole records (which are rows too), so one traversal serves both.
 */
export interface SourceRowReader<N extends NodeRow, E extends EdgeRow> {
  /** live edges of a type into any of `targets` */
  edgesInto(targets: string[], edgeType: string): Promise<E[]>;
  /** live nodes among `uids` */
  liveNodes(uids: string[]): Promise<Map<string, N>>;
  /** live edges with both ends in `uids` */
  edgesAmong(uids: string[]): Promise<E[]>;
}

/** Never among a Project's extracted nodes (REFERENCE §12.1 Nodes(P)). */
export const NOT_SOURCES: ReadonlySet<string> = new Set(['Document', 'Chunk', 'Article', 'Space']);

/** Docs(P) → Chunks(P) → Nodes(P) → Edges(P), with the admitting edges, as rows. */
export interface SourceTraversal<N extends NodeRow, E extends EdgeRow> {
  documents: Map<string, N>;
  /** each chunk with the document of its first admitting ChunkOf edge */
  chunks: Map<string, { node: N; document_uid: string }>;
  nodes: Map<string, N>;
  edges: E[];
  /** PartOfProject edges of admitted documents */
  partOf: E[];
  /** ChunkOf edges of admitted chunks */
  chunkOf: E[];
  /** ExtractedFrom edges of admitted nodes, to admitted chunks */
  extractedFrom: E[];
}

/** The single definition of a Project's admitted sources (REFERENCE §12.1). */
export async function traverseSources<N extends NodeRow, E extends EdgeRow>(r: SourceRowReader<N, E>, projectUid: string): Promise<SourceTraversal<N, E>> {
  const partOfAll = await r.edgesInto([projectUid], 'PartOfProject');
  const documents = new Map<string, N>();
  for (const d of (await r.liveNodes(partOfAll.map((e) => e.from_uid))).values()) if (d.node_type === 'Document') documents.set(d.uid, d);
  const partOf = partOfAll.filter((e) => documents.has(e.from_uid));

  const chunkOfAll = await r.edgesInto([...documents.keys()], 'ChunkOf');
  const chunkNodes = await r.liveNodes(chunkOfAll.map((e) => e.from_uid));
  const chunks = new Map<string, { node: N; document_uid: string }>();
  const chunkOf: E[] = [];
  for (const e of chunkOfAll) {
    const c = chunkNodes.get(e.from_uid);
    if (!c || c.node_type !== 'Chunk') continue;
    chunkOf.push(e);
    if (!chunks.has(c.uid)) chunks.set(c.uid, { node: c, document_uid: e.to_uid });
  }

  const extractedAll = await r.edgesInto([...chunks.keys()], 'ExtractedFrom');
  const nodes = new Map<string, N>();
  for (const n of (await r.liveNodes(extractedAll.map((e) => e.from_uid))).values()) if (!NOT_SOURCES.has(n.node_type)) nodes.set(n.uid, n);
  const extractedFrom = extractedAll.filter((e) => nodes.has(e.from_uid));

  const edges = nodes.size > 0 ? await r.edgesAmong([...nodes.keys()]) : [];
  return { documents, chunks, nodes, edges, partOf, chunkOf, extractedFrom };
}

const id = (x: { uid: string; version: number }) => ({ uid: x.uid, version: x.version });

/** The identities the fingerprint covers, from a traversal. */
export function identitiesOf(t: SourceTraversal<NodeRow, EdgeRow>): SourceIdentities {
  const extractions = new Map<string, { edge_uid: string; edge_version: number }[]>();
  for (const e of t.extractedFrom) {
    let l = extractions.get(e.from_uid);
    if (!l) extractions.set(e.from_uid, (l = []));
    l.push({ edge_uid: e.uid, edge_version: e.version });
  }
  const ids = (m: Map<string, NodeRow>) => new Map([...m].map(([u, n]) => [u, id(n)]));
  return {
    documents: ids(t.documents),
    chunks: new Map([...t.chunks].map(([u, c]) => [u, id(c.node)])),
    nodes: ids(t.nodes),
    edges: t.edges.map(id),
    admitting: [...t.partOf, ...t.chunkOf].map(id),
    extractions,
  };
}
