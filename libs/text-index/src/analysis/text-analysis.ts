import { porterStem } from './porter-stemmer';

/**
 * Most distinct terms taken from one query; the rest are ignored. Every term may cost a list
 * read: without the bound one 10,000-character query of 1,000 distinct words held the event
 * loop ~28 s at 100,000 rows (docs/search.md, "The first 32 words of a query").
 */
export const MAX_QUERY_TERMS = 32;

// A term is a run of Unicode letters/digits; combining marks stay attached so "café" written
// decomposed (e + U+0301) is still one term.
const TERM_RE = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

/**
 * The user's query as distinct terms (case-insensitive), in first-seen order. Nothing else of
 * the input survives, so FTS5 / Meilisearch syntax (`"`, `*`, `-`, `:`, NEAR, AND…) in a query
 * is never interpreted.
 */
export function queryTerms(query: string, max = MAX_QUERY_TERMS): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of query.matchAll(TERM_RE)) {
    const term = m[0].normalize('NFC');
    const key = term.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(term);
    if (out.length >= max) break;
  }
  return out;
}

/** Case-folded, diacritic-free form of a string: NFKD, combining marks dropped, lowercased. */
export function foldText(text: string): string {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase();
}

const WORD_RE = /[\p{L}\p{N}]+/gu;

/**
 * The words of `text` as the SQLite FTS5 tokenizer `porter unicode61 remove_diacritics 2`
 * sees them: folded for case and diacritics, split on anything not a letter/digit, stemmed.
 */
export function analyzeWords(text: string): string[] {
  const out: string[] = [];
  for (const m of foldText(text).matchAll(WORD_RE)) out.push(porterStem(m[0]));
  return out;
}

/** `analyzeWords` joined by spaces: what the Meilisearch adapter stores and queries. */
export function analyzeText(text: string): string {
  return analyzeWords(text).join(' ');
}
