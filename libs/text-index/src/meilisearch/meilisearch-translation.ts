import { analyzeText, analyzeWords, queryTerms } from '../analysis/text-analysis';
import { DEFAULT_SALIENCE, type TextDocument, type TextHit, type TextQuery } from '../text-index.port';

/** Pure mapping between the TextIndex port and Meilisearch documents, filters and queries. */

export const DEFAULT_MEILI_INDEX = 'strata_nodes';

/** What we store per node. label/summary/body hold the analysed (folded, stemmed) words. */
export interface MeiliNodeDocument {
  id: string;
  org: string;
  uid: string;
  node_type: string;
  layer: string;
  label: string;
  summary: string;
  body: string;
  /** the tie-break after relevance (a custom ranking rule and the merge of per-term lists) */
  salience: number;
}

/**
 * Index settings. searchableAttributes order drives Meilisearch's attribute ranking rule, so
 * label outranks summary outranks body.
 */
export const MEILI_INDEX_SETTINGS = {
  searchableAttributes: ['label', 'summary', 'body'],
  filterableAttributes: ['org', 'uid', 'node_type', 'layer'],
  displayedAttributes: ['id', 'org', 'uid', 'node_type', 'layer', 'salience'],
  // per-term lists are merged, so each may need to reach well past the page
  pagination: { maxTotalHits: 10_000 },
};

/**
 * Custom ranking rules appended after the engine's own (whatever its version names them): among
 * equally relevant documents, higher salience first, then uid — the order of REFERENCE §5.1,
 * so a per-term list cut at its limit keeps the documents the merged order wants.
 */
export const TIE_BREAK_RULES = ['salience:desc', 'uid:asc'];

/** The engine's ranking rules with ours last (idempotent). */
export function withTieBreakRules(current: string[] | null | undefined): string[] {
  const own = (current ?? []).filter((r) => !TIE_BREAK_RULES.includes(r));
  return [...own, ...TIE_BREAK_RULES];
}

/** Meilisearch allows at most 511 bytes of [A-Za-z0-9_-] in a document id. */
const MAX_ID_BYTES = 511;

/**
 * `${org}:${uid}` made into a legal Meilisearch id: base64url (alphabet [A-Za-z0-9_-]) of the
 * UTF-8 bytes of org, U+001F, uid. Injective, deterministic, reversible.
 */
export function encodeDocumentId(org: string, uid: string): string {
  const id = Buffer.from(`${org}\u001f${uid}`, 'utf8').toString('base64url');
  if (id.length > MAX_ID_BYTES) throw new Error(`document id for ${org}/${uid} exceeds ${MAX_ID_BYTES} bytes`);
  return id;
}

export function decodeDocumentId(id: string): { org: string; uid: string } {
  const raw = Buffer.from(id, 'base64url').toString('utf8');
  const sep = raw.indexOf('\u001f');
  if (sep < 0) throw new Error(`not a Strata document id: ${id}`);
  return { org: raw.slice(0, sep), uid: raw.slice(sep + 1) };
}

/**
 * Meilisearch does not stem, so we index (and query) the same analysed words SQLite FTS5
 * would produce: case and diacritics folded, Porter-stemmed.
 */
export function toMeiliDocument(doc: TextDocument): MeiliNodeDocument {
  return {
    id: encodeDocumentId(doc.org, doc.uid),
    org: doc.org,
    uid: doc.uid,
    node_type: doc.node_type,
    layer: doc.layer,
    label: analyzeText(doc.label ?? ''),
    summary: analyzeText(doc.summary ?? ''),
    body: analyzeText(doc.body ?? ''),
    salience: doc.salience ?? DEFAULT_SALIENCE,
  };
}

/**
 * A filter string literal. Meilisearch's filter parser only un-escapes `\"` inside a
 * double-quoted value and keeps any other backslash as is, so a value is exactly
 * representable unless a backslash is followed by `"` or ends the value; those are refused
 * rather than silently matched against something else (uids, types and layers never hold
 * them).
 */
export function quoteFilterValue(value: string): string {
  if (typeof value !== 'string') throw new TypeError('filter value must be a string');
  if (/\\("|$)/.test(value)) throw new Error(`value cannot be expressed in a Meilisearch filter: ${JSON.stringify(value)}`);
  return `"${value.replace(/"/g, '\\"')}"`;
}

function quoteList(values: string[]): string {
  return `[${values.map(quoteFilterValue).join(', ')}]`;
}

export type FilterInput = Pick<TextQuery, 'org' | 'node_types' | 'exclude_node_types' | 'layer' | 'uids'>;

/** The filter for one query; always scoped to the organization. */
export function buildSearchFilter(q: FilterInput): string {
  const parts = [`org = ${quoteFilterValue(q.org)}`];
  if (q.node_types?.length) parts.push(`node_type IN ${quoteList(q.node_types)}`);
  if (q.exclude_node_types?.length) parts.push(`node_type NOT IN ${quoteList(q.exclude_node_types)}`);
  if (q.layer !== undefined && q.layer !== null) parts.push(`layer = ${quoteFilterValue(q.layer)}`);
  if (q.uids) parts.push(`uid IN ${quoteList(q.uids)}`);
  return parts.join(' AND ');
}

export function orgFilter(org: string): string {
  return `org = ${quoteFilterValue(org)}`;
}

/** Most terms sent to Meilisearch for one query (one sub-query each). */
export const MAX_MEILI_TERMS = 16;
/** Longer "words" cannot match anything Meilisearch indexed; they are ignored. */
const MAX_TERM_CHARS = 200;

/**
 * The query as distinct analysed terms. Only letters and digits survive, so Meilisearch's
 * own query syntax (`"phrase"`, `-negation`) never applies to user input.
 */
export function searchTerms(query: string): string[] {
  const out = new Set<string>();
  for (const term of queryTerms(query ?? '')) {
    for (const word of analyzeWords(term)) {
      if (word.length > 0 && word.length <= MAX_TERM_CHARS) out.add(word);
    }
    if (out.size >= MAX_MEILI_TERMS) break;
  }
  return [...out].slice(0, MAX_MEILI_TERMS);
}

/** Hits fetched per term: the page plus head-room, since per-term lists are merged. */
export function perTermLimit(limit: number): number {
  return Math.min(MEILI_INDEX_SETTINGS.pagination.maxTotalHits, Math.max(50, limit * 3));
}

/**
 * OR semantics over per-term result lists: a document's score is the sum of its per-term
 * ranking scores (each 0..1), so matching more terms ranks higher, as with BM25. Ties go to
 * salience (descending), then uid: the port's one order. `min_score` applies to the summed score.
 */
export function mergeTermHits(
  perTerm: Array<Array<{ uid: string; salience?: number; _rankingScore?: number }>>,
  limit: number,
  minScore?: number,
): TextHit[] {
  const merged = new Map<string, { uid: string; score: number; salience: number }>();
  for (const hits of perTerm) {
    for (const hit of hits) {
      const m = merged.get(hit.uid);
      if (m) m.score += hit._rankingScore ?? 0;
      else merged.set(hit.uid, { uid: hit.uid, score: hit._rankingScore ?? 0, salience: hit.salience ?? DEFAULT_SALIENCE });
    }
  }
  const all = [...merged.values()];
  all.sort((a, b) => b.score - a.score || b.salience - a.salience || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  const kept = minScore === undefined || minScore === null ? all : all.filter((h) => h.score >= minScore);
  return kept.slice(0, Math.max(0, limit)).map(({ uid, score, salience }) => ({ uid, score, salience }));
}
