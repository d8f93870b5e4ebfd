import { Api } from './http';

/**
 * Builds ingested material through the ordinary graph routes, in exactly the shapes the
 * ingestion pipeline writes (REFERENCE §9.2–9.3): a Document, its Chunks (Chunk → Document
 * ChunkOf {chunk_index}, `char_offset_start/end` as UTF-8 byte offsets into the document),
 * extracted nodes (node → Chunk ExtractedFrom {method, confidence, location: the JSON text of
 * a selector {exact, prefix, suffix, start, end}, byte offsets into the chunk}), Document →
 * Project PartOfProject {admitted_at, admitted_by} and Document → Session CapturedIn.
 * One `/batch` per document, so a large corpus is quick to build.
 */

/** Chunks of one document are separated by this in the document's content. */
export const CHUNK_SEPARATOR = '\n\n';

export interface ExtractSpec {
  /** key in the result's `nodes` (default: the label) */
  ref?: string;
  node_type: string;
  label: string;
  /** index of the chunk it was extracted from */
  chunk: number;
  /** the quote anchored in the chunk (default: the label); it must occur in the chunk unless `anchored:false` */
  quote?: string;
  /** false: ExtractedFrom without a location (an unanchored extraction) */
  anchored?: boolean;
  /** ExtractedFrom.method (default "llm") */
  method?: string;
  /** ExtractedFrom.confidence and the node's (default 0.6) */
  confidence?: number;
  /** reuse this existing node instead of creating one (an entity seen in several documents) */
  uid?: string;
  props?: Record<string, unknown>;
  salience?: number;
}

export interface DocSpec {
  title: string;
  /** chunk contents, in order */
  chunks: string[];
  document_type?: string;
  /** page map: 1-based pages and the byte offset into the document where each starts */
  page_offsets?: { page: number; char_start: number }[];
  occurred_at?: string;
  project_uid?: string;
  session_uid?: string;
  extracted?: ExtractSpec[];
  /** further Document props (paper metadata) */
  props?: Record<string, unknown>;
}

export interface IngestedDocument {
  document_uid: string;
  chunk_uids: string[];
  /** chunk contents and their byte offsets into the document */
  chunks: { uid: string; content: string; char_offset_start: number; char_offset_end: number }[];
  /** extracted node uids by ref (or label) */
  nodes: Record<string, string>;
  /** ExtractedFrom edge uids by ref (or label) */
  extracted_edges: Record<string, string>;
}

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** The selector ingestion stores for `quote` found in `content` (byte offsets); null when it does not occur. */
export function selectorFor(content: string, quote: string): { exact: string; prefix: string; suffix: string; start: number; end: number } | null {
  const at = content.indexOf(quote);
  if (at < 0) return null;
  const start = bytes(content.slice(0, at));
  return {
    exact: quote,
    prefix: content.slice(Math.max(0, at - 16), at),
    suffix: content.slice(at + quote.length, at + quote.length + 16),
    start,
    end: start + bytes(quote),
  };
}

/** Byte offset of each page start, for a document whose pages are the given chunk groups. */
export function pageMapOf(chunks: string[], pageOfChunk: number[]): { page: number; char_start: number }[] {
  const out: { page: number; char_start: number }[] = [];
  let offset = 0;
  chunks.forEach((c, i) => {
    if (i === 0 || pageOfChunk[i] !== pageOfChunk[i - 1]) out.push({ page: pageOfChunk[i], char_start: offset });
    offset += bytes(c) + bytes(CHUNK_SEPARATOR);
  });
  return out;
}

export async function ingestDocument(c: Api, spec: DocSpec, admittedAt = 0): Promise<IngestedDocument> {
  const nodes: Record<string, unknown>[] = [];
  const edges: Record<string, unknown>[] = [];
  const docProps: Record<string, unknown> = {
    title: spec.title,
    document_type: spec.document_type ?? 'article',
    processing_status: 'completed',
    chunk_count: spec.chunks.length,
    content_length: bytes(spec.chunks.join(CHUNK_SEPARATOR)),
    ...(spec.page_offsets ? { page_offsets: JSON.stringify(spec.page_offsets), page_count: Math.max(...spec.page_offsets.map((p) => p.page)) } : {}),
    ...(spec.occurred_at ? { occurred_at: spec.occurred_at } : {}),
    ...spec.props,
  };
  nodes.push({ ref: 'doc', node_type: 'Document', label: spec.title, props: docProps });
  const chunkMeta: { content: string; char_offset_start: number; char_offset_end: number }[] = [];
  let offset = 0;
  spec.chunks.forEach((content, i) => {
    const start = offset;
    const end = start + bytes(content);
    offset = end + bytes(CHUNK_SEPARATOR);
    chunkMeta.push({ content, char_offset_start: start, char_offset_end: end });
    nodes.push({
      ref: `chunk${i}`,
      node_type: 'Chunk',
      label: `${spec.title} · chunk ${i}`,
      props: { content, chunk_type: spec.document_type === 'transcript' ? 'transcript' : 'document', chunk_index: i, char_offset_start: start, char_offset_end: end, processing_status: 'completed' },
    });
    edges.push({ from_ref: `chunk${i}`, to_ref: 'doc', edge_type: 'ChunkOf', props: { chunk_index: i } });
  });
  if (spec.project_uid) edges.push({ from_ref: 'doc', to_uid: spec.project_uid, edge_type: 'PartOfProject', props: { admitted_at: admittedAt, admitted_by: 'test' } });
  if (spec.session_uid) edges.push({ from_ref: 'doc', to_uid: spec.session_uid, edge_type: 'CapturedIn' });
  const refs: string[] = [];
  for (const [i, x] of (spec.extracted ?? []).entries()) {
    const key = x.ref ?? x.label;
    refs.push(key);
    const chunk = spec.chunks[x.chunk];
    if (chunk === undefined) throw new Error(`${key}: no chunk ${x.chunk}`);
    const quote = x.quote ?? x.label;
    const sel = x.anchored === false ? null : selectorFor(chunk, quote);
    if (x.anchored !== false && !sel) throw new Error(`${key}: "${quote}" does not occur in chunk ${x.chunk}`);
    const confidence = x.confidence ?? 0.6;
    const from = x.uid ? { from_uid: x.uid } : { from_ref: `x${i}` };
    if (!x.uid) nodes.push({ ref: `x${i}`, node_type: x.node_type, label: x.label, confidence, ...(x.salience !== undefined ? { salience: x.salience } : {}), ...(x.props ? { props: x.props } : {}) });
    edges.push({ ...from, to_ref: `chunk${x.chunk}`, edge_type: 'ExtractedFrom', props: { method: x.method ?? 'llm', confidence, ...(sel ? { location: JSON.stringify(sel) } : {}) } });
  }
  const r = await c.post('/batch', { nodes, edges });
  if (r.status !== 201) throw new Error(`POST /batch (${spec.title}): ${r.status} ${r.text}`);
  const extractedEdgeIndex = edges.length - refs.length;
  const out: IngestedDocument = { document_uid: r.body.refs.doc, chunk_uids: [], chunks: [], nodes: {}, extracted_edges: {} };
  spec.chunks.forEach((_, i) => {
    out.chunk_uids.push(r.body.refs[`chunk${i}`]);
    out.chunks.push({ uid: r.body.refs[`chunk${i}`], ...chunkMeta[i] });
  });
  (spec.extracted ?? []).forEach((x, i) => {
    out.nodes[refs[i]] = x.uid ?? r.body.refs[`x${i}`];
    out.extracted_edges[refs[i]] = r.body.edge_uids[extractedEdgeIndex + i];
  });
  return out;
}

/** A Project node. */
export async function createProject(c: Api, name: string): Promise<string> {
  const r = await c.post('/node', { node_type: 'Project', label: name, props: { name, description: `${name} project` } });
  if (r.status !== 201) throw new Error(`POST /node Project: ${r.status} ${r.text}`);
  return r.body.uid;
}
