import { DomainError, Errors } from '../errors';
import { parseIsoDateOrPartial } from '../validation/iso-time';
import { Body, characterCount, readBoolean, readNumber, readString, readStringArray, readUid } from '../validation';

export const CHUNK_CONTENT_MAX_CHARS = 100_000;
export const DOCUMENT_CONTENT_MAX_BYTES = 5 * 1024 * 1024;

export const CHUNK_TYPES = ['document', 'transcript'] as const;
export const DOCUMENT_TYPES = ['article', 'transcript', 'note', 'pdf'] as const;

const tooLarge = (message: string) => new DomainError(413, 'payload_too_large', message);

export interface Participant {
  name: string;
  organization?: string;
  role?: string;
}

/** Conversation context (REFERENCE §9.3): guides attribution, kept with the job. */
export interface ConversationContext {
  participants: Participant[];
  occurred_at: string | null;
  context: string | null;
}

export interface PageOffset {
  page: number;
  char_start: number;
}

export function readChunkContent(body: Body): string {
  const content = readString(body, 'content', { required: true })!;
  if (content.length > CHUNK_CONTENT_MAX_CHARS && characterCount(content) > CHUNK_CONTENT_MAX_CHARS)
    throw tooLarge(`content of /ingest/chunk takes at most ${CHUNK_CONTENT_MAX_CHARS} characters`);
  return content;
}

export function assertDocumentSize(content: string): void {
  if (content.length * 3 > DOCUMENT_CONTENT_MAX_BYTES && Buffer.byteLength(content, 'utf8') > DOCUMENT_CONTENT_MAX_BYTES)
    throw tooLarge('document content takes at most 5 MiB of UTF-8');
}

export interface ChunkRequest {
  content: string;
  label?: string;
  chunk_type: (typeof CHUNK_TYPES)[number];
  document_uid?: string;
  chunk_index?: number;
}

/** `POST /ingest/chunk` apart from layers (REFERENCE §9.3). */
export function readChunkRequest(body: Body): ChunkRequest {
  const content = readChunkContent(body);
  const label = readString(body, 'label', { trim: true, max: 1000 });
  const chunk_type = (readString(body, 'chunk_type', { trim: true }) ?? 'document') as ChunkRequest['chunk_type'];
  if (!CHUNK_TYPES.includes(chunk_type)) throw Errors.invalidField('chunk_type', `chunk_type must be one of: ${CHUNK_TYPES.join(', ')}`, { allowed: [...CHUNK_TYPES] });
  const document_uid = readUid(body, 'document_uid');
  const chunk_index = readNumber(body, 'chunk_index', { integer: true, min: 0 });
  return { content, label, chunk_type, document_uid, chunk_index };
}

export function readParticipants(body: Body): Participant[] {
  const v = body.participants;
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw Errors.invalidField('participants', 'participants must be an array of {name, organization?, role?}');
  if (v.length > 1000) throw Errors.invalidField('participants', 'participants takes at most 1000 entries');
  return v.map((p, i) => {
    if (!p || typeof p !== 'object' || Array.isArray(p)) throw Errors.invalidField(`participants[${i}]`, `participants[${i}] must be an object`);
    const name = readString(p as Body, 'name', { required: true, trim: true, max: 500, label: `participants[${i}].name` })!;
    const organization = readString(p as Body, 'organization', { trim: true, max: 500, label: `participants[${i}].organization` });
    const role = readString(p as Body, 'role', { trim: true, max: 500, label: `participants[${i}].role` });
    return { name, ...(organization ? { organization } : {}), ...(role ? { role } : {}) };
  });
}

export function readOccurredAt(body: Body): string | null {
  const v = readString(body, 'occurred_at', { trim: true });
  if (v === undefined) return null;
  if (parseIsoDateOrPartial(v) === null) throw Errors.invalidField('occurred_at', 'occurred_at must be an ISO 8601 date or date-time (partial precision such as "2026-03" allowed)');
  return v;
}

/** `occurred_at` as Unix seconds (fractional): a partial date stands for the start of its year or month. */
export function occurredAtSeconds(occurredAt: string): number {
  return parseIsoDateOrPartial(occurredAt)! / 1000;
}

export function readConversationContext(body: Body): ConversationContext {
  return {
    participants: readParticipants(body),
    occurred_at: readOccurredAt(body),
    context: readString(body, 'context', { max: 10_000 }) ?? null,
  };
}

/** Paper metadata, stored in the Document's props (REFERENCE §9.3). */
export function readPaperMetadata(body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const authors = readStringArray(body, 'authors', { max: 1000 });
  if (authors) out.authors = authors;
  const keywords = readStringArray(body, 'keywords', { max: 1000 });
  if (keywords) out.keywords = keywords;
  for (const f of ['abstract_text', 'doi', 'publication_date', 'journal', 'arxiv_id', 'language']) {
    const s = readString(body, f, { max: f === 'abstract_text' ? 100_000 : 1000 });
    if (s !== undefined) out[f] = s;
  }
  const citations = readNumber(body, 'citation_count', { integer: true, min: 0 });
  if (citations !== undefined) out.citation_count = citations;
  return out;
}

/**
 * `page_offsets` (1-based pages, byte offsets, increasing) and `page_count`. A page cannot start
 * past the end of the content: `contentBytes` is its length in UTF-8 bytes (REFERENCE §9.2).
 */
export function readPages(body: Body, contentBytes: number): { page_offsets: PageOffset[]; page_count: number | null } {
  const v = body.page_offsets;
  const page_count = readNumber(body, 'page_count', { integer: true, min: 0 }) ?? null;
  if (v === undefined || v === null) return { page_offsets: [], page_count };
  if (!Array.isArray(v)) throw Errors.invalidField('page_offsets', 'page_offsets must be an array of {page, char_start}');
  const out: PageOffset[] = v.map((p, i) => {
    if (!p || typeof p !== 'object') throw Errors.invalidField(`page_offsets[${i}]`, `page_offsets[${i}] must be an object`);
    const page = readNumber(p as Body, 'page', { required: true, integer: true, min: 1, label: `page_offsets[${i}].page` })!;
    const char_start = readNumber(p as Body, 'char_start', { required: true, integer: true, min: 0, label: `page_offsets[${i}].char_start` })!;
    if (char_start > contentBytes)
      throw Errors.invalidField(`page_offsets[${i}].char_start`, `page_offsets[${i}].char_start must be at most ${contentBytes}, the content's length in UTF-8 bytes`);
    return { page, char_start };
  });
  for (let i = 1; i < out.length; i++)
    if (out[i].page <= out[i - 1].page || out[i].char_start < out[i - 1].char_start)
      throw Errors.invalidField(`page_offsets[${i}]`, 'page_offsets must be in increasing page and char_start order');
  return { page_offsets: out, page_count };
}

/** The 1-based page holding a byte offset, or null without a page map. */
export function pageAt(pages: readonly PageOffset[], byteOffset: number): number | null {
  let page: number | null = null;
  for (const p of pages) {
    if (p.char_start > byteOffset) break;
    page = p.page;
  }
  return page ?? (pages.length ? pages[0].page : null);
}

export interface DocumentRequestCore {
  title?: string;
  document_type: (typeof DOCUMENT_TYPES)[number];
  source_uri?: string;
  mime_type?: string;
  force_reingest: boolean;
  project_uid?: string;
}

export function readDocumentCore(body: Body): DocumentRequestCore {
  const title = readString(body, 'title', { trim: true, max: 1000 });
  const document_type = (readString(body, 'document_type', { trim: true }) ?? 'article') as DocumentRequestCore['document_type'];
  if (!DOCUMENT_TYPES.includes(document_type)) throw Errors.invalidField('document_type', `document_type must be one of: ${DOCUMENT_TYPES.join(', ')}`, { allowed: [...DOCUMENT_TYPES] });
  return {
    title,
    document_type,
    source_uri: readString(body, 'source_uri', { trim: true, max: 2000 }),
    mime_type: readString(body, 'mime_type', { trim: true, max: 200 }),
    force_reingest: readBoolean(body, 'force_reingest') ?? false,
    project_uid: readUid(body, 'project_uid'),
  };
}
