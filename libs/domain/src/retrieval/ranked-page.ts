/**
 * Pages of search-like results in the REFERENCE §5.1 order: score descending, then salience
 * descending, then uid. An index ranks by score alone and cuts its answer wherever it likes
 * among equal scores, so the page is worked out from its hits in two steps: fetch until the
 * boundary score is passed (`fetchThroughTies`), then put the hits whose place depends on
 * salience in order (`tieWindow` says which) and cut.
 */

export interface ScoredUid {
  uid: string;
  score: number;
}

/**
 * The index's top `n` hits, best score first. Fewer than `n` must mean no more exist (an
 * adapter that filters its answer asks for more itself).
 */
export type FetchTop<H extends ScoredUid> = (n: number) => Promise<H[]>;

/**
 * Hits fetched beyond the page up front: one tells whether the page's last score ties the
 * next hit (rare for text). Only one: a deeper page is dearer to prove for an index that plans
 * its top-N (SQLite FTS5's MaxScore bound must be beaten by the page's last score).
 */
export const TIE_SLACK = 1;

/** No ranking is read past this many hits (a page further down, e.g. a huge offset, is empty). */
export const RANKED_MAX = 1_000_000;

/**
 * Every hit scoring at least as well as the `need`-th best (all hits when fewer match), best
 * score first: asks for `need + TIE_SLACK`, then twice as many each time the last hit still
 * ties the boundary score, up to `max` (past it, the index's own cut stands).
 */
export async function fetchThroughTies<H extends ScoredUid>(fetch: FetchTop<H>, need: number, max = RANKED_MAX): Promise<H[]> {
  need = Math.min(need, max);
  if (!(need > 0)) return [];
  let n = Math.min(need + TIE_SLACK, max);
  for (;;) {
    const hits = sortByScore(await fetch(n));
    if (hits.length < n || hits.length < need) return hits;
    if (hits[hits.length - 1].score < hits[need - 1].score || n >= max) return hits;
    n = Math.min(Math.max(n * 2, need + TIE_SLACK), max);
  }
}

/**
 * Of hits sorted by score, the index range [from, to) whose §5.1 order decides the page
 * [offset, offset + limit): the page's own hits plus the hits tying its first and last score
 * (salience may move them in or out). Only these need their nodes loaded.
 */
export function tieWindow(hits: readonly ScoredUid[], offset: number, limit: number): { from: number; to: number } {
  const end = Math.min(hits.length, offset + limit);
  if (offset >= end) return { from: 0, to: 0 };
  let from = offset;
  while (from > 0 && hits[from - 1].score === hits[offset].score) from--;
  let to = end;
  while (to < hits.length && hits[to].score === hits[end - 1].score) to++;
  return { from, to };
}

/** Best score first, then uid (the order adapters give; made sure of, since pages rely on it). */
export function sortByScore<H extends ScoredUid>(hits: H[]): H[] {
  for (let i = 1; i < hits.length; i++) {
    const a = hits[i - 1];
    const b = hits[i];
    if (a.score < b.score || (a.score === b.score && a.uid > b.uid)) return [...hits].sort(byScoreThenUid);
  }
  return hits;
}

function byScoreThenUid(a: ScoredUid, b: ScoredUid): number {
  return b.score - a.score || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}

/** The §5.1 order of ranked candidates known by head: score, then salience, then uid. */
export function compareRanked(a: ScoredUid & { salience: number }, b: ScoredUid & { salience: number }): number {
  return b.score - a.score || b.salience - a.salience || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0);
}
