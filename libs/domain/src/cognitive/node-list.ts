import { NodeRecord } from '../records';
import { Body, readPage } from '../validation';

/** NodeList reads (REFERENCE §4.0): a bare array capped at `limit` (default 100, max 1000). */
export function readListLimit(body: Body): number {
  return readPage(body, { limit: 100, max: 1000 }).limit;
}

/** A paginated shape (§1.9) from a page of items. */
export function paginated<T>(items: T[], has_more: boolean, page: { limit: number; offset: number }) {
  return { items, has_more, limit: page.limit, offset: page.offset };
}

/** Sort key helpers for lists ordered by a props timestamp; ties by uid ascending. */
export function byPropNumber(field: string, dir: 'asc' | 'desc') {
  const sign = dir === 'asc' ? 1 : -1;
  return (a: NodeRecord, b: NodeRecord): number => {
    const x = numberOr(a.props[field]);
    const y = numberOr(b.props[field]);
    if (x !== y) {
      if (x === null) return 1; // nulls last either way
      if (y === null) return -1;
      return sign * (x - y);
    }
    return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
  };
}

function numberOr(v: unknown): number | null {
  return typeof v === 'number' ? v : null;
}
