import { Errors } from '../errors';
import { SeriesPoint } from '../events';
import { Body, characterCount, isWellFormedUid } from '../validation';

export const MAX_POINTS_PER_CALL = 10_000;

export interface PointInput {
  ts: number;
  value: number;
  source_uid: string | null;
  note: string | null;
  /** position in the request, for error fields */
  index: number;
}

/**
 * Reads `points`: each `{ts, value, source_uid?, note?}` with finite numbers. A ts given
 * twice in one call keeps the last value (a series holds one point per ts).
 */
export function readPoints(body: Body, opts: { required: boolean }): PointInput[] | undefined {
  const v = body.points;
  if (v === undefined || v === null) {
    if (opts.required) throw Errors.missingField('points');
    return undefined;
  }
  if (!Array.isArray(v)) throw Errors.invalidField('points', 'points must be an array of {ts, value} objects');
  if (opts.required && v.length === 0) throw Errors.invalidField('points', 'points must hold at least one point');
  if (v.length > MAX_POINTS_PER_CALL) throw Errors.invalidField('points', `at most ${MAX_POINTS_PER_CALL} points per call (got ${v.length})`);
  const byTs = new Map<number, PointInput>();
  v.forEach((raw, index) => {
    const name = `points[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw Errors.invalidField(name, `${name} must be an object`);
    const p = raw as Body;
    for (const f of ['ts', 'value']) {
      if (p[f] === undefined || p[f] === null) throw Errors.missingField(`${name}.${f}`);
      if (typeof p[f] !== 'number' || !Number.isFinite(p[f])) throw Errors.invalidField(`${name}.${f}`, `${name}.${f} must be a finite number`);
    }
    if (p.note !== undefined && p.note !== null && typeof p.note !== 'string') throw Errors.invalidField(`${name}.note`, `${name}.note must be a string`);
    if (typeof p.note === 'string' && p.note.length > 10_000 && characterCount(p.note) > 10_000) throw Errors.invalidField(`${name}.note`, `${name}.note must be at most 10000 characters`);
    const ts = p.ts as number;
    byTs.delete(ts); // re-insert so the map keeps the last occurrence's position
    byTs.set(ts, { ts, value: p.value as number, source_uid: (p.source_uid ?? null) as string | null, note: (p.note ?? null) as string | null, index });
  });
  return [...byTs.values()];
}

/** §4.0 step 6 for points: each source_uid is well-formed. */
export function checkPointUids(points: readonly PointInput[]): void {
  for (const p of points) if (p.source_uid !== null && !isWellFormedUid(p.source_uid)) throw Errors.invalidUid(`points[${p.index}].source_uid`);
}

export function toStored(points: readonly PointInput[], now: number): SeriesPoint[] {
  return points.map((p) => ({ ts: p.ts, value: p.value, source_uid: p.source_uid, note: p.note, recorded_at: now }));
}

export interface SeriesCache {
  point_count: number;
  first_ts: number | null;
  last_ts: number | null;
  latest_value: number | null;
  latest_ts: number | null;
}

/**
 * The Series cache fields after an append: `existing` holds which incoming ts were already
 * stored (those replace, the rest are appended).
 */
export function nextCache(current: SeriesCache, incoming: readonly SeriesPoint[], existing: ReadonlySet<number>) {
  let appended = 0;
  let first = current.first_ts;
  let last = current.last_ts;
  let latest: SeriesPoint | null = null;
  for (const p of incoming) {
    if (!existing.has(p.ts)) appended++;
    if (first === null || p.ts < first) first = p.ts;
    if (last === null || p.ts > last) last = p.ts;
    if (!latest || p.ts > latest.ts) latest = p;
  }
  const cache: SeriesCache = { ...current, point_count: current.point_count + appended, first_ts: first, last_ts: last };
  if (latest && (current.latest_ts === null || latest.ts >= current.latest_ts)) {
    cache.latest_ts = latest.ts;
    cache.latest_value = latest.value;
  }
  return { cache, appended, replaced: incoming.length - appended };
}

export function cacheOf(props: Record<string, unknown>, pointCount: number): SeriesCache {
  const n = (v: unknown) => (typeof v === 'number' ? v : null);
  return { point_count: pointCount, first_ts: n(props.first_ts), last_ts: n(props.last_ts), latest_value: n(props.latest_value), latest_ts: n(props.latest_ts) };
}
