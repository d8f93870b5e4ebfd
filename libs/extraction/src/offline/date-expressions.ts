const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_RE = '(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\\.?';

function monthNumber(name: string): number {
  const n = name.toLowerCase().replace('.', '');
  return MONTHS.findIndex((m) => m.startsWith(n.slice(0, 3))) + 1;
}

const pad = (n: number) => String(n).padStart(2, '0');

interface DatePattern {
  re: RegExp;
  iso(m: RegExpExecArray): string | null;
}

function ymd(y: number, mo: number, d?: number): string | null {
  if (mo < 1 || mo > 12) return null;
  if (d === undefined) return `${y}-${pad(mo)}`;
  if (d < 1 || d > 31) return null;
  return `${y}-${pad(mo)}-${pad(d)}`;
}

// Absolute dates only: a relative one ("yesterday") would make the same text give different
// nodes on different days, and the offline extractor is deterministic.
const PATTERNS: DatePattern[] = [
  { re: /\b(\d{4})-(\d{2})-(\d{2})\b/, iso: (m) => ymd(+m[1], +m[2], +m[3]) },
  { re: new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)? (?:of )?${MONTH_RE},? (\\d{4})\\b`, 'i'), iso: (m) => ymd(+m[3], monthNumber(m[2]), +m[1]) },
  { re: new RegExp(`\\b${MONTH_RE} (\\d{1,2})(?:st|nd|rd|th)?,? (\\d{4})\\b`, 'i'), iso: (m) => ymd(+m[3], monthNumber(m[1]), +m[2]) },
  { re: new RegExp(`\\b${MONTH_RE},? (\\d{4})\\b`), iso: (m) => ymd(+m[2], monthNumber(m[1])) },
  { re: /\b(?:in|since|by|during|until|from|of|before|after) (1[5-9]\d{2}|20\d{2})\b/i, iso: (m) => m[1] },
];

/** The first absolute date expression of a sentence, with its ISO 8601 form (day, month or year). */
export function findDate(sentence: string): { text: string; iso: string } | null {
  for (const p of PATTERNS) {
    const m = p.re.exec(sentence);
    if (!m) continue;
    const iso = p.iso(m);
    if (iso) return { text: m[0], iso };
  }
  return null;
}
