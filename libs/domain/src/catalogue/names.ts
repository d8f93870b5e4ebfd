/** Node type names (§2.4): a letter, then up to 63 letters, digits, `_`, `-` or spaces. */
export const NODE_TYPE_NAME_RE = /^[A-Za-z][A-Za-z0-9_ -]{0,63}$/;
/** Edge type names (§3.2): a letter, then up to 99 letters, digits, `_`, `-` or spaces. */
export const EDGE_TYPE_NAME_RE = /^[A-Za-z][A-Za-z0-9_ -]{0,99}$/;
/** Input uids (§1.4). */
export const UID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

const SEPARATORS_RE = /[_\- ]/g;

/** The comparison key of a type name: `_`, `-` and spaces removed, lower-cased (§2.5, §3.2). */
export function typeKey(name: string): string {
  return name.replace(SEPARATORS_RE, '').toLowerCase();
}

const WORD_SPLIT_RE = /[_\- ]+|(?<=[a-z])(?=[A-Z])/;

/**
 * PascalCase form of a custom type name (§3.2): split at separators and lower-to-upper
 * boundaries, all-caps words become Capitalised, other words get an upper-case first letter.
 */
export function canonicalCustomName(name: string): string {
  let out = '';
  for (const word of name.split(WORD_SPLIT_RE)) {
    if (!word) continue;
    if (/[A-Z]/.test(word) && !/[a-z]/.test(word)) out += word[0] + word.slice(1).toLowerCase();
    else out += word[0].toUpperCase() + word.slice(1);
  }
  return out;
}

export function isWellFormedUid(v: unknown): v is string {
  return typeof v === 'string' && UID_RE.test(v);
}

const NOT_WORD_CHAR_RE = /[^\p{L}\p{N}\s]+/gu;
const WHITESPACE_RUN_RE = /\s+/gu;
const ASTRAL_RE = /[\uD800-\uDFFF]/;

/**
 * Matching normalisation (§4.2): NFKC, lower-case, drop everything but letters, digits and
 * whitespace, collapse whitespace runs to one space, trim. Dropping before collapsing keeps
 * `"a - b"` from leaving a double space.
 */
export function normaliseText(s: string): string {
  return s
    .normalize('NFKC')
    .toLowerCase()
    .replace(NOT_WORD_CHAR_RE, '')
    .replace(WHITESPACE_RUN_RE, ' ')
    .trim();
}

/** Trigram set of an already-normalised string: each word padded `"  w "`, cut into 3-grams. */
export function trigrams(normalised: string): Set<string> {
  const grams = new Set<string>();
  if (!normalised) return grams;
  for (const word of normalised.split(' ')) {
    const padded = `  ${word} `;
    if (ASTRAL_RE.test(padded)) {
      // Cut by code point so astral letters are never split.
      const cps = Array.from(padded);
      for (let i = 0; i + 3 <= cps.length; i++) grams.add(cps[i] + cps[i + 1] + cps[i + 2]);
    } else {
      for (let i = 0; i + 3 <= padded.length; i++) grams.add(padded.slice(i, i + 3));
    }
  }
  return grams;
}

/**
 * Trigram Jaccard similarity of two texts after normalisation (§4.2). An exact normalised
 * match scores 1.0; two texts that normalise to nothing score 0 (nothing to match on).
 */
export function trigramSimilarity(a: string, b: string): number {
  const na = normaliseText(a);
  const nb = normaliseText(b);
  if (!na || !nb) return 0;
  if (na === nb) return 1;
  const ga = trigrams(na);
  const gb = trigrams(nb);
  let inter = 0;
  for (const g of ga) if (gb.has(g)) inter++;
  const union = ga.size + gb.size - inter;
  return union === 0 ? 0 : inter / union;
}
