import { Cron } from 'croner';
import { Errors } from '../errors';

/**
 * The cron rules of agent schedules (REFERENCE §16.11): 5 fields (minute hour day-of-month
 * month day-of-week) with `*`, lists, ranges, steps, month and day names, `7` = Sunday, `L`
 * and `#`, or one of the nicknames; both day fields restricted → either matches (Vixie, croner's
 * default). A pattern must fire at least once within 5 years, and its next 1000 firings must be
 * at least `minIntervalS` apart. When it fires (time zone, DST) is the platform scheduler's
 * `nextSlot`, passed in as `next`, so the rule checks exactly the firings that will happen.
 */
export const SCHEDULE_NICKNAMES = ['@hourly', '@daily', '@weekly', '@monthly', '@yearly', '@annually'] as const;
export const DEFAULT_MIN_INTERVAL_S = 300;
/** firings checked for their spacing */
export const SPACING_CHECKED = 1000;
const FIVE_YEARS_S = Math.round(5 * 365.25 * 86400);

/** The first firing strictly after `after` (Unix seconds), null when there is none. */
export type NextFiring = (after: number) => number | null;

const MONTHS = 'jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec';
const DAYS = 'sun|mon|tue|wed|thu|fri|sat';
/** what each field may hold (croner reads the values; this refuses its extensions the reference does not name: `?`, `W`, `+`, seconds and years) */
const FIELD_SHAPES: { name: string; re: RegExp }[] = [
  { name: 'minute', re: /^(\*|\d+(-\d+)?)(\/\d+)?(,(\*|\d+(-\d+)?)(\/\d+)?)*$/ },
  { name: 'hour', re: /^(\*|\d+(-\d+)?)(\/\d+)?(,(\*|\d+(-\d+)?)(\/\d+)?)*$/ },
  { name: 'day-of-month', re: /^(\*|L|\d+(-\d+)?)(\/\d+)?(,(\*|L|\d+(-\d+)?)(\/\d+)?)*$/i },
  { name: 'month', re: new RegExp(`^(\\*|(\\d+|${MONTHS})(-(\\d+|${MONTHS}))?)(\\/\\d+)?(,(\\*|(\\d+|${MONTHS})(-(\\d+|${MONTHS}))?)(\\/\\d+)?)*$`, 'i') },
  {
    name: 'day-of-week',
    re: new RegExp(`^(\\*|(\\d+|${DAYS})(-(\\d+|${DAYS}))?(L|#(\\d|L))?)(\\/\\d+)?(,(\\*|(\\d+|${DAYS})(-(\\d+|${DAYS}))?(L|#(\\d|L))?)(\\/\\d+)?)*$`, 'i'),
  },
];

export function isTimeZone(tz: string): boolean {
  if (typeof tz !== 'string' || tz === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

function invalidCron(message: string) {
  return Errors.invalidField('cron', message);
}

/** 400 `invalid_field` (`field:"cron"`) unless the pattern is well formed (before any firing is computed). */
export function assertCronSyntax(cron: string): string {
  const pattern = cron.trim();
  if (pattern.startsWith('@')) {
    if (!(SCHEDULE_NICKNAMES as readonly string[]).includes(pattern.toLowerCase()))
      throw invalidCron(`unknown cron nickname '${pattern}': use ${SCHEDULE_NICKNAMES.join(', ')}`);
    return pattern.toLowerCase();
  }
  const fields = pattern.split(/\s+/);
  if (fields.length !== 5) throw invalidCron('cron must have 5 fields: minute hour day-of-month month day-of-week');
  fields.forEach((f, i) => {
    if (!FIELD_SHAPES[i].re.test(f)) throw invalidCron(`the ${FIELD_SHAPES[i].name} field '${f}' is not valid`);
  });
  try {
    new Cron(fields.join(' '), { mode: '5-part', timezone: 'UTC' });
  } catch (err) {
    throw invalidCron(`invalid cron pattern: ${(err as Error).message}`);
  }
  return fields.join(' ');
}

/**
 * A pattern with one minute value fires at most hourly in wall time, and a DST change moves a
 * firing by at most the change (a whole or half hour), so its firings are always at least
 * this far apart: walking 1000 of them (a second or so of croner) proves nothing more.
 */
const SINGLE_MINUTE_SPACING_S = 1800;

function firesOnOneMinute(pattern: string): boolean {
  return pattern.startsWith('@') || /^\d+$/.test(pattern.split(/\s+/)[0]);
}

/**
 * 400 unless the pattern fires within 5 years of `now` and its next 1000 firings are at least
 * `minIntervalS` apart. Returns the first firing.
 */
export function assertCronFirings(next: NextFiring, now: number, minIntervalS: number, pattern?: string): number {
  const first = next(now);
  if (first === null || first - now > FIVE_YEARS_S) throw invalidCron('the cron pattern never fires within 5 years');
  if (pattern !== undefined && minIntervalS <= SINGLE_MINUTE_SPACING_S && firesOnOneMinute(pattern)) return first;
  let prev = first;
  for (let i = 1; i < SPACING_CHECKED; i++) {
    const n = next(prev);
    if (n === null) break;
    if (n - prev < minIntervalS)
      throw invalidCron(`firings must be at least ${minIntervalS} seconds apart; this pattern fires at ${new Date(prev * 1000).toISOString()} and again ${n - prev} seconds later`);
    prev = n;
  }
  return first;
}

/** 400 `invalid_field` (`field:"timezone"`) unless an IANA zone name. */
export function assertTimeZone(tz: string): void {
  if (!isTimeZone(tz)) throw Errors.invalidField('timezone', `unknown IANA time zone: ${tz}`);
}
