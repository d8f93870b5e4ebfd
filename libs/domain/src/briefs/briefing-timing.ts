import { Cron } from 'croner';
import { Errors } from '../errors';

/**
 * When a briefing schedule fires (REFERENCE §12.7): a 5-field cron read in an IANA zone, at most
 * hourly (the minute field is one number), or an interval counted from the schedule's creation.
 * A time in a spring-forward gap fires at the first minute after the gap and a repeated autumn
 * time fires once (croner's own behaviour, which is what §12.7 asks; the platform scheduler of
 * §16.11 shifts gap times instead, hence this module).
 */
export interface BriefingTiming {
  cron: string | null;
  interval_secs: number | null;
  timezone: string;
  /** Unix seconds; intervals count from here */
  created_at: number;
}

export const MIN_INTERVAL_SECS = 3600;
export const MAX_INTERVAL_SECS = 2_592_000;
/** how far back a cron schedule's missed fire may be and still be caught up */
const CRON_CATCH_UP_SECS = 24 * 3600;

const MONTHS = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec';
const DAYS = 'sun|mon|tue|wed|thu|fri|sat';
/** a comma list of `*`, values or ranges, each with an optional step; `value` is one value's syntax */
const listOf = (value: string) => {
  const item = `(\\*|(${value})(-(${value}))?)(\\/\\d+)?`;
  return new RegExp(`^${item}(,${item})*$`, 'i');
};
/**
 * What §12.7 lets the fields after the minute hold: `*`, lists, ranges, steps and the month and
 * day names. croner reads more (`L`, `W`, `?`, `#`), which a briefing schedule refuses.
 */
const FIELD_SHAPES: { name: string; re: RegExp }[] = [
  { name: 'hour', re: listOf('\\d+') },
  { name: 'day-of-month', re: listOf('\\d+') },
  { name: 'month', re: listOf(`\\d+|${MONTHS}`) },
  { name: 'day-of-week', re: listOf(`\\d+|${DAYS}`) },
];

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** 400 `missing_field` without a timing, `invalid_field` for a bad one (§12.7 field rules). */
export function assertBriefingTiming(t: { cron?: unknown; interval_secs?: unknown; timezone?: unknown }): void {
  const hasCron = t.cron !== undefined && t.cron !== null;
  const hasInterval = t.interval_secs !== undefined && t.interval_secs !== null;
  if (!hasCron && !hasInterval) throw Errors.missingField('cron', 'one of cron and interval_secs is required');
  if (hasCron && hasInterval) throw Errors.invalidField('cron', 'a schedule has exactly one of cron and interval_secs');
  if (t.timezone !== undefined && (typeof t.timezone !== 'string' || !isTimeZone(t.timezone))) throw Errors.invalidField('timezone', `unknown IANA time zone: ${String(t.timezone)}`);
  if (hasInterval) {
    const v = t.interval_secs;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < MIN_INTERVAL_SECS || v > MAX_INTERVAL_SECS)
      throw Errors.invalidField('interval_secs', `interval_secs must be an integer from ${MIN_INTERVAL_SECS} to ${MAX_INTERVAL_SECS}`);
    return;
  }
  if (typeof t.cron !== 'string') throw Errors.invalidField('cron', 'cron must be a string of 5 fields');
  const fields = t.cron.trim().split(/\s+/);
  if (fields.length !== 5) throw Errors.invalidField('cron', 'cron must have 5 fields: minute hour day-of-month month day-of-week');
  if (!/^\d{1,2}$/.test(fields[0]) || Number(fields[0]) > 59) throw Errors.invalidField('cron', 'the minute field must be one number from 0 to 59 (a schedule fires at most hourly)');
  FIELD_SHAPES.forEach((shape, i) => {
    if (!shape.re.test(fields[i + 1])) throw Errors.invalidField('cron', `the ${shape.name} field '${fields[i + 1]}' is not valid: use *, lists, ranges, steps, MON–SUN and JAN–DEC`);
  });
  try {
    if (!new Cron(t.cron.trim(), { timezone: 'UTC' }).nextRun(new Date(0))) throw new Error('it never fires');
  } catch (err) {
    throw Errors.invalidField('cron', `invalid cron pattern: ${(err as Error).message}`);
  }
}

/** The first fire time strictly after `after` (Unix seconds); null when a pattern never fires again. */
export function nextFireAfter(t: BriefingTiming, after: number): number | null {
  if (t.interval_secs !== null) {
    const k = Math.max(1, Math.floor((after - t.created_at) / t.interval_secs) + 1);
    return t.created_at + k * t.interval_secs;
  }
  const next = new Cron(t.cron!.trim(), { timezone: t.timezone }).nextRun(new Date(after * 1000));
  return next ? Math.floor(next.getTime() / 1000) : null;
}

/**
 * At start-up, the fire times missed while the service was stopped (`next_run_at` ≤ now)
 * collapse into one `catch_up` run when the latest of them is under one period old (the
 * interval, or 24 h for cron); older ones are dropped. Returns the slot to catch up (or null)
 * and the next fire time after now.
 */
export function catchUp(t: BriefingTiming, nextRunAt: number | null, now: number): { catch_up: number | null; next_run_at: number | null } {
  const next = nextFireAfter(t, now);
  if (nextRunAt === null || nextRunAt > now) return { catch_up: null, next_run_at: nextRunAt ?? next };
  // the latest missed fire time: the last one at or before now
  let latest = nextRunAt;
  for (let s = nextFireAfter(t, nextRunAt); s !== null && s <= now; s = nextFireAfter(t, s)) latest = s;
  const period = t.interval_secs ?? CRON_CATCH_UP_SECS;
  return { catch_up: now - latest < period ? latest : null, next_run_at: next };
}
