import { Errors } from '../errors';

export const SERIES_FNS = ['count', 'sum', 'mean', 'min', 'max', 'first', 'last', 'stddev'] as const;
export type SeriesFn = (typeof SERIES_FNS)[number];
export const MAX_BUCKETS = 10_000;

export interface TsValue {
  ts: number;
  value: number;
}

/**
 * One aggregate over points sorted by ts ascending; null when there are none (count is 0).
 * stddev is the population standard deviation.
 */
export function aggregate(fn: SeriesFn, points: readonly TsValue[]): number | null {
  if (fn === 'count') return points.length;
  if (!points.length) return null;
  switch (fn) {
    case 'sum':
      return sum(points);
    case 'mean':
      return sum(points) / points.length;
    case 'min':
      return points.reduce((m, p) => Math.min(m, p.value), Infinity);
    case 'max':
      return points.reduce((m, p) => Math.max(m, p.value), -Infinity);
    case 'first':
      return points[0].value;
    case 'last':
      return points[points.length - 1].value;
    case 'stddev': {
      const mean = sum(points) / points.length;
      return Math.sqrt(points.reduce((s, p) => s + (p.value - mean) ** 2, 0) / points.length);
    }
  }
}

function sum(points: readonly TsValue[]): number {
  let s = 0;
  for (const p of points) s += p.value;
  return s;
}

export interface Bucket {
  start: number;
  end: number;
  count: number;
  value: number | null;
}

/**
 * Buckets of `size` seconds aligned to `origin` (the window start, or the epoch). Empty
 * buckets are omitted; more than 10,000 spanned buckets is a 400 naming bucket_secs.
 */
export function bucketize(fn: SeriesFn, points: readonly TsValue[], size: number, origin: number, window: { start?: number; end?: number }): Bucket[] {
  const lo = window.start ?? points[0]?.ts;
  const lastTs = points[points.length - 1]?.ts;
  if (lo !== undefined && (window.end !== undefined || lastTs !== undefined)) {
    const first = Math.floor((lo - origin) / size);
    // `end` is exclusive (REFERENCE §4.3): the last bucket is the one just below it, not the
    // one starting at it; without an end, the last point itself is in the window
    const last = window.end !== undefined ? Math.ceil((window.end - origin) / size) - 1 : Math.floor((lastTs! - origin) / size);
    const spanned = last - first + 1;
    if (spanned > MAX_BUCKETS)
      throw Errors.invalidField('bucket_secs', `bucket_secs ${size} gives ${spanned} buckets over the window; at most ${MAX_BUCKETS} are allowed`);
  }
  const out: Bucket[] = [];
  let i = 0;
  while (i < points.length) {
    const k = Math.floor((points[i].ts - origin) / size);
    let j = i;
    while (j < points.length && Math.floor((points[j].ts - origin) / size) === k) j++;
    const slice = points.slice(i, j);
    out.push({ start: origin + k * size, end: origin + (k + 1) * size, count: slice.length, value: aggregate(fn, slice) });
    i = j;
  }
  return out;
}
