import { Cron } from 'croner';
import { Errors } from '@strata/domain/errors';
import { ScheduleTiming } from './schedule';

const NICKNAMES = new Set(['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@hourly']);
/** the longest DST gap looked back over (no zone skips more than an hour or two) */
const MAX_GAP_MS = 2 * 3600_000;

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** 400 `invalid_field` unless the timing is one valid cron pattern (5 fields or a nickname) or interval, in a known IANA zone. */
export function assertValidTiming(t: ScheduleTiming): void {
  const hasCron = t.cron !== undefined && t.cron !== null;
  const hasInterval = t.interval_s !== undefined && t.interval_s !== null;
  if (hasCron === hasInterval) throw Errors.invalidField('cron', 'a schedule has exactly one of cron and interval_s');
  if (t.timezone !== undefined && !isTimeZone(t.timezone)) throw Errors.invalidField('timezone', `unknown IANA time zone: ${t.timezone}`);
  if (hasInterval) {
    if (!Number.isInteger(t.interval_s) || t.interval_s! < 1) throw Errors.invalidField('interval_s', 'interval_s must be a whole number of seconds, at least 1');
    return;
  }
  const pattern = t.cron!.trim();
  if (!NICKNAMES.has(pattern.toLowerCase()) && pattern.split(/\s+/).length !== 5) {
    throw Errors.invalidField('cron', 'cron must have 5 fields (minute hour day-of-month month day-of-week) or be @hourly, @daily, @weekly, @monthly or @yearly');
  }
  let next: Date | null;
  try {
    next = new Cron(pattern, { timezone: 'UTC' }).nextRun(new Date(0));
  } catch (err) {
    throw Errors.invalidField('cron', `invalid cron pattern: ${(err as Error).message}`);
  }
  if (!next) throw Errors.invalidField('cron', 'the cron pattern never fires');
}

// parsed patterns and zone formatters are reused: walking the slots of a long downtime asks for thousands
const CACHED = 256;
const crons = new Map<string, Cron>();
const formats = new Map<string, Intl.DateTimeFormat>();

function cached<T>(map: Map<string, T>, key: string, make: () => T): T {
  let v = map.get(key);
  if (v === undefined) {
    if (map.size >= CACHED) map.clear();
    map.set(key, (v = make()));
  }
  return v;
}

const cronOf = (pattern: string, timezone: string) => cached(crons, `${timezone} ${pattern}`, () => new Cron(pattern, { timezone }));

/** the wall-clock time of an instant in a zone, as milliseconds of a UTC date with those fields */
function wallMs(ms: number, timeZone: string): number {
  const parts: Record<string, number> = {};
  const fmt = cached(formats, timeZone, () => new Intl.DateTimeFormat('en-US', { timeZone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' }));
  for (const p of fmt.formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
}

const offsetMs = (ms: number, tz: string) => wallMs(ms, tz) - Math.floor(ms / 1000) * 1000;

/**
 * croner puts a firing time that falls in a spring-forward gap at the end of the gap (02:30 in
 * Paris on the last Sunday of March fires at 03:00); REFERENCE §16.11 shifts it by the gap
 * (03:30), as if the clock had not jumped. `r` is croner's firing time: when it is the instant
 * the clocks went forward and the pattern does not match 03:00 itself, the firing is the
 * pattern's first wall time in the gap, read with the offset before the jump.
 */
function shiftOutOfGap(pattern: string, tz: string, r: number): number {
  const before = offsetMs(r - 1000, tz);
  const after = offsetMs(r, tz);
  if (after <= before) return r;
  const wall = cronOf(pattern, 'UTC');
  const wallR = r + after;
  if (wall.nextRun(new Date(wallR - 1000))?.getTime() === wallR) return r; // a firing of its own at the end of the gap
  const gapStart = r + before;
  const first = wall.nextRun(new Date(gapStart - 1000))?.getTime();
  return first !== undefined && first < gapStart + (after - before) ? first - before : r;
}

/**
 * The first slot strictly after `after` (Unix seconds), or null when the pattern never fires
 * again. Cron patterns are read in the zone (croner); in a repeated autumn hour a fixed-time
 * pattern fires once and `*` patterns keep firing (croner); a spring-forward gap shifts.
 * Intervals count from the Unix epoch, so every replica computes the same slots.
 */
export function nextSlot(t: ScheduleTiming, after: number): number | null {
  if (t.interval_s !== undefined && t.interval_s !== null) return (Math.floor(after / t.interval_s) + 1) * t.interval_s;
  const tz = t.timezone ?? 'UTC';
  const pattern = t.cron!.trim();
  const cron = cronOf(pattern, tz);
  const afterMs = after * 1000;
  const candidates: number[] = [];
  const r = cron.nextRun(new Date(afterMs));
  if (r) candidates.push(shiftOutOfGap(pattern, tz, r.getTime()));
  // a gap firing shifted past `after` although croner placed it at or before `after`
  const early = offsetMs(afterMs, tz) > offsetMs(afterMs - MAX_GAP_MS, tz) ? cron.nextRun(new Date(afterMs - MAX_GAP_MS)) : null;
  if (early && early.getTime() <= afterMs) {
    const shifted = shiftOutOfGap(pattern, tz, early.getTime());
    if (shifted > afterMs) candidates.push(shifted);
  }
  return candidates.length === 0 ? null : Math.min(...candidates) / 1000;
}
