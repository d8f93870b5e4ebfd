/**
 * Strict ISO 8601 date and date-time reading. `Date.parse` rolls impossible dates over
 * ("2031-02-31" becomes March 3) and reads a date-time without a zone in the server's local
 * time; this reader refuses the first and reads the second as UTC.
 *
 * Accepted: `YYYY-MM-DD`, optionally followed by `T` (or a space) and `hh:mm`, `hh:mm:ss` or
 * `hh:mm:ss.fff…`, optionally followed by `Z` or an offset `±hh:mm` / `±hhmm` / `±hh`.
 */
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Unix milliseconds of a well-formed, real calendar date or date-time; null otherwise. */
export function parseIsoDateTime(text: string): number | null {
  const m = ISO_RE.exec(text);
  if (!m) return null;
  const [, y, mo, d, hh, mi, ss, frac, zone] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const hour = hh === undefined ? 0 : Number(hh);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = ss === undefined ? 0 : Number(ss);
  if (hour > 23 || minute > 59 || second > 59) return null;
  const ms = frac === undefined ? 0 : Number(frac.slice(0, 3).padEnd(3, '0'));
  let offsetMinutes = 0;
  if (zone !== undefined && zone.toUpperCase() !== 'Z') {
    const digits = zone.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day); // not Date.UTC: it maps years 0–99 to 1900–1999
  at.setUTCHours(hour, minute, second, ms);
  return at.getTime() - offsetMinutes * 60_000;
}

/**
 * Like `parseIsoDateTime`, also taking the partial precision REFERENCE §1.3 allows in
 * free-text date fields (`"2026"`, `"2026-03"`): the start of that year or month, in UTC.
 */
export function parseIsoDateOrPartial(text: string): number | null {
  if (/^\d{4}$/.test(text)) return parseIsoDateTime(`${text}-01-01`);
  if (/^\d{4}-\d{2}$/.test(text)) return parseIsoDateTime(`${text}-01`);
  return parseIsoDateTime(text);
}
