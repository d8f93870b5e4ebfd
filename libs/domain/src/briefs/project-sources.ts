import { createHash } from 'node:crypto';
import { PageOffset, anchorInChunk, pagesOfSpan } from '../retrieval/source-anchor';
import { Citation, SourceCounts } from './brief-records';

/**
 * A Project's admitted sources (REFERENCE §12.1) as the brief reads them, loaded fresh for each
 * generation: Docs(P), Chunks(P), Nodes(P), Edges(P), and the PartOfProject, ChunkOf and
 * ExtractedFrom edges that admit them (the fingerprint covers those too).
 */
export interface SourceDocument {
  uid: string;
  version: number;
  title: string;
  page_map: PageOffset[];
}

export interface SourceChunk {
  uid: string;
  version: number;
  document_uid: string;
  content: string;
  chunk_index: number;
  /** bytes into the document where the chunk starts (pages), when ingestion recorded it */
  char_offset_start: number | null;
}

export interface SourceNode {
  uid: string;
  version: number;
  node_type: string;
  label: string;
  props: Record<string, unknown>;
  confidence: number;
  created_at: number;
  /** the ranking facts the structural generator reads of every node: `props.status` as the record has it, `props.importance` when a number */
  status: unknown;
  importance: number | null;
}

export interface SourceEdge {
  uid: string;
  version: number;
  edge_type: string;
  from_uid: string;
  to_uid: string;
  props: Record<string, unknown>;
  created_at: number;
}

/** A node's live ExtractedFrom edge to a member of Chunks(P). */
export interface Extraction {
  edge_uid: string;
  edge_version: number;
  chunk_uid: string;
  location: unknown;
}

export interface ProjectSources {
  project_uid: string;
  documents: Map<string, SourceDocument>;
  chunks: Map<string, SourceChunk>;
  nodes: Map<string, SourceNode>;
  /** Edges(P) */
  edges: SourceEdge[];
  /** the PartOfProject and ChunkOf edges admitting documents and chunks, as (uid, version) */
  admitting: { uid: string; version: number }[];
  /** for each node of Nodes(P), its admitting ExtractedFrom edges */
  extractions: Map<string, Extraction[]>;
}

/** A member's identity: all the fingerprint reads. */
export interface SourceIdentity {
  uid: string;
  version: number;
}

/**
 * The identities of a Project's admitted sources and of the edges admitting them: what the
 * fingerprint covers, cheap to read without the records' content. ProjectSources satisfies it.
 */
export interface SourceIdentities {
  documents: Map<string, SourceIdentity>;
  chunks: Map<string, SourceIdentity>;
  nodes: Map<string, SourceIdentity>;
  edges: SourceIdentity[];
  admitting: SourceIdentity[];
  extractions: Map<string, { edge_uid: string; edge_version: number }[]>;
}

export function sourceCounts(s: ProjectSources): SourceCounts {
  return { documents: s.documents.size, chunks: s.chunks.size, nodes: s.nodes.size, edges: s.edges.length };
}

/**
 * `"sha256:"` + hex SHA-256 of the lines `<uid> <version>`, sorted and joined by `\n`: one per
 * member of every set and per admitting edge (§12.4). Any edit, admission or removal changes it.
 */
export function sourceFingerprint(s: SourceIdentities): string {
  const lines: string[] = [];
  for (const d of s.documents.values()) lines.push(`${d.uid} ${d.version}`);
  for (const c of s.chunks.values()) lines.push(`${c.uid} ${c.version}`);
  for (const n of s.nodes.values()) lines.push(`${n.uid} ${n.version}`);
  for (const e of s.edges) lines.push(`${e.uid} ${e.version}`);
  for (const e of s.admitting) lines.push(`${e.uid} ${e.version}`);
  for (const list of s.extractions.values()) for (const x of list) lines.push(`${x.edge_uid} ${x.edge_version}`);
  lines.sort();
  return fingerprintOfLines(lines.filter((l, i) => i === 0 || l !== lines[i - 1]));
}

/** The fingerprint of the identity lines `<uid> <version>`, given sorted and without repeats. */
export function fingerprintOfLines(sortedDistinct: readonly string[]): string {
  return 'sha256:' + createHash('sha256').update(sortedDistinct.join('\n')).digest('hex');
}

/** A citation of a chunk span (pages from the document's page map). */
export function citationOf(s: ProjectSources, chunk: SourceChunk, nodeUid: string | null, start: number | null, end: number | null, quote: string | null): Citation {
  const doc = s.documents.get(chunk.document_uid);
  const pages = pagesOfSpan(doc?.page_map ?? [], chunk.char_offset_start, start, end);
  return {
    chunk_uid: chunk.uid,
    document_uid: chunk.document_uid,
    document_title: doc?.title ?? '',
    chunk_index: chunk.chunk_index,
    node_uid: nodeUid,
    char_start: start,
    char_end: end,
    quote,
    ...pages,
  };
}

/**
 * The citations of a node: one per admitting ExtractedFrom edge, anchored by the stored
 * selector when it matches the chunk byte for byte, else by the label's first occurrence,
 * else unanchored (§12.4).
 */
export function nodeCitations(s: ProjectSources, nodeUid: string): Citation[] {
  const n = s.nodes.get(nodeUid);
  if (!n) return [];
  const out: Citation[] = [];
  for (const x of s.extractions.get(nodeUid) ?? []) {
    const chunk = s.chunks.get(x.chunk_uid);
    if (!chunk) continue;
    const a = anchorInChunk(chunk.content, x.location, n.label);
    out.push(citationOf(s, chunk, nodeUid, a.char_start, a.char_end, a.quote));
  }
  return out;
}

/** By document title, `chunk_index`, `char_start` (unanchored last), then node uid. */
export function compareCitations(a: Citation, b: Citation): number {
  if (a.document_title !== b.document_title) return a.document_title < b.document_title ? -1 : 1;
  if (a.chunk_index !== b.chunk_index) return a.chunk_index - b.chunk_index;
  const as = a.char_start ?? Number.MAX_SAFE_INTEGER;
  const bs = b.char_start ?? Number.MAX_SAFE_INTEGER;
  if (as !== bs) return as - bs;
  if (a.chunk_uid !== b.chunk_uid) return a.chunk_uid < b.chunk_uid ? -1 : 1;
  const an = a.node_uid ?? '';
  const bn = b.node_uid ?? '';
  return an < bn ? -1 : an > bn ? 1 : 0;
}

/** A citation still stands when its chunk (and node, if any) is admitted. */
export function citationAdmitted(s: ProjectSources, c: Citation): boolean {
  return s.chunks.has(c.chunk_uid) && (c.node_uid === null || s.nodes.has(c.node_uid));
}

export type AnchorFailure = 'quote_not_found' | 'offsets_mismatch';

/**
 * Anchors a quote in a chunk byte for byte: with offsets, `content[start:end]` must equal it;
 * without, its first exact occurrence. A failure names why.
 */
export function anchorQuoteBytes(content: string, quote: string, start?: number, end?: number): { start: number; end: number } | AnchorFailure {
  const bytes = Buffer.from(content, 'utf8');
  const q = Buffer.from(quote, 'utf8');
  if (start !== undefined || end !== undefined) {
    if (start === undefined || end === undefined || start < 0 || end < start || end > bytes.length) return 'offsets_mismatch';
    return bytes.subarray(start, end).equals(q) ? { start, end } : 'offsets_mismatch';
  }
  const at = q.length ? bytes.indexOf(q) : -1;
  return at < 0 ? 'quote_not_found' : { start: at, end: at + q.length };
}
