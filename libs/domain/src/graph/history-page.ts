import { Body, readNumber } from '../validation';

/**
 * One page of a node's or edge's history: versions from `from_version` on, at most `limit`
 * (default and maximum 1,000: REFERENCE §1.9's stated cap for a bare array, and every version
 * of nearly every record, as REFERENCE's history promises), and no more
 * than about HISTORY_PAGE_BYTES of snapshots, since every version carries the whole record.
 * 200 versions of a node with 1 MB of props made one 130 MB answer that held every client up
 * for 3 s; a client asks for the next page with `from_version` = last version + 1.
 */
export interface HistoryPage {
  from_version: number;
  limit: number;
}

export const HISTORY_DEFAULT_LIMIT = 1000;
export const HISTORY_MAX_LIMIT = 1000;
export const HISTORY_PAGE_BYTES = 16 * 1024 * 1024;

export function readHistoryPage(q: Body): HistoryPage {
  const from_version = readNumber(q, 'from_version', { integer: true, min: 1 }) ?? 1;
  const limit = Math.min(readNumber(q, 'limit', { integer: true, min: 0 }) ?? HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT);
  return { from_version, limit };
}

/**
 * The versions of the page, in order: those at or after `from_version`, while the count stays
 * within `limit` and the snapshots' size within the budget (always at least one).
 */
export function pageOfHistory<V extends { version: number }>(versions: V[], page: HistoryPage, sizeOf: (v: V) => number, budget = HISTORY_PAGE_BYTES): V[] {
  const out: V[] = [];
  let bytes = 0;
  for (const v of versions) {
    if (v.version < page.from_version) continue;
    if (out.length >= page.limit) break;
    const size = sizeOf(v);
    if (out.length > 0 && bytes + size > budget) break;
    bytes += size;
    out.push(v);
  }
  return out;
}
