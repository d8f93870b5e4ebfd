import { fmix32 } from '@strata/domain/hashing/fmix32';
import type { EmbeddingProvider } from '../embedding-provider.port';
import { FeatureCounts } from './feature-counts';

export interface LexicalEmbedderOptions {
  /** output length, 1–8192 (default 384) */
  dimensions?: number;
}

/** Weight of one character 3-gram relative to a whole word. */
const NGRAM_WEIGHT = 0.3;

// Function words carry no topic; hashing them would make unrelated texts look alike.
const STOP_WORDS = new Set(
  (
    'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
    'me my no not of on or our she so than that the their them then there these they this those to too us was we were ' +
    'what when where which who whom why will with would you your'
  ).split(' '),
);

/**
 * Offline "embedding" by feature hashing (the built-in provider): a text becomes the signed,
 * hashed bag of its normalised words (NFKD, diacritics stripped, lowercased, light English
 * suffix stemming, stop words dropped) and the character 3-grams of each word, with
 * sublinear term frequency (1 + ln tf), L2-normalised.
 *
 * It matches wording, not meaning: "car engine repair" is close to "repairing the engine
 * of a car" but not to "automobile maintenance". Deterministic and dependency-free. An empty
 * (or stop-words-only) text embeds to the zero vector.
 */
export class LexicalEmbedder implements EmbeddingProvider {
  readonly provider = 'builtin';
  readonly model = 'strata-lexical-v1';
  readonly lexical = true;
  readonly dimensions: number;

  constructor(options: LexicalEmbedderOptions = {}) {
    const d = options.dimensions ?? 384;
    if (!Number.isInteger(d) || d < 1 || d > 8192) throw new RangeError('dimensions must be an integer from 1 to 8192');
    this.dimensions = d;
    this.acc = new Float64Array(d);
    this.touched = new Uint32Array(Math.ceil(d / 32));
    this.slots = new Int32Array(d);
  }

  // Scratch state reused between calls (embedding is synchronous, so calls never interleave).
  private readonly features = new FeatureCounts();
  /** the unnormalised vector; only the slots listed in `slots` are non-zero */
  private readonly acc: Float64Array;
  /** one bit per slot of `acc` written by the current text */
  private readonly touched: Uint32Array;
  /** the written slots in ascending order, `slotCount` of them */
  private readonly slots: Int32Array;
  private slotCount = 0;

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => this.embedVector(t));
  }

  /** Synchronous single-text form as a fresh Float64Array (benchmarks, typed-array consumers). */
  embedOne(text: string): Float64Array {
    const n = this.accumulate(text);
    const v = new Float64Array(this.dimensions);
    const { acc, slots } = this;
    for (let k = 0; k < this.slotCount; k++) v[slots[k]] = acc[slots[k]] / n;
    return v;
  }

  /** embedOne as a plain number[] (what JSON and the vector stores take), without an intermediate typed array: the service's hot path. */
  embedVector(text: string): number[] {
    const n = this.accumulate(text);
    const v = new Array<number>(this.dimensions).fill(0);
    const { acc, slots } = this;
    for (let k = 0; k < this.slotCount; k++) v[slots[k]] = acc[slots[k]] / n;
    return v;
  }

  /**
   * Sums the signed feature weights of `text` into this.acc, lists the slots it wrote and
   * returns the vector's L2 norm.
   *
   * Features are keyed by their 32-bit FNV-1a hash (computed from char codes, never built as
   * strings) plus their kind. Slot and sign depend only on that hash, so this equals hashing the
   * feature strings, except when two different features of one kind in one text share a hash:
   * their counts are then merged before the sublinear scaling instead of being scaled separately.
   */
  private accumulate(text: string): number {
    const counts = this.features;
    counts.reset();
    const t = text ?? '';
    if (!NON_ASCII.test(t)) addAsciiWords(counts, t);
    else {
      // NFKD, mark stripping and lowercasing act on each whitespace-separated piece alone (ASCII
      // whitespace ends every combining sequence and every casing context), so only the pieces
      // holding a non-ASCII character need them; the ASCII stretches between take the fast path
      // (a chunk's 8 KB of ASCII text with one "·" in its label)
      let from = 0;
      NON_ASCII_ALL.lastIndex = 0;
      for (let m = NON_ASCII_ALL.exec(t); m; m = NON_ASCII_ALL.exec(t)) {
        let s = m.index;
        while (s > from && !isAsciiSpace(t.charCodeAt(s - 1))) s--;
        let e = m.index + 1;
        while (e < t.length && !isAsciiSpace(t.charCodeAt(e))) e++;
        if (s > from) addAsciiWords(counts, t.slice(from, s));
        for (const word of normalisedWords(t.slice(s, e))) addWord(counts, word, 0, word.length);
        from = NON_ASCII_ALL.lastIndex = e;
      }
      if (from < t.length) addAsciiWords(counts, from === 0 ? t : t.slice(from));
    }

    const { acc, touched, slots } = this;
    // clear what the previous text wrote
    for (let k = 0; k < this.slotCount; k++) acc[slots[k]] = 0;
    touched.fill(0);
    const d = this.dimensions;
    // first-occurrence order, as the string-keyed Map iterated, so floating-point sums match
    for (let f = 0; f < counts.size; f++) {
      const h = counts.hashes[f] >>> 0;
      const unit = counts.kinds[f] === WORD ? 1 : NGRAM_WEIGHT;
      // tf is a weighted count; sublinear scaling relative to one occurrence of the feature
      // (which is exactly `unit`: 1 + ln 1 = 1, so the log is skipped for single occurrences)
      const tf = counts.tfs[f];
      const weight = tf === unit ? unit : unit * (1 + Math.log(tf / unit));
      // the finaliser decorrelates the sign bit from the slot
      const sign = fmix32(h) & 1 ? -1 : 1;
      const slot = h % d;
      acc[slot] += sign * weight;
      touched[slot >>> 5] |= 1 << (slot & 31);
    }
    // the norm sums in ascending slot order, as a pass over the whole vector would (zeros add nothing)
    let count = 0;
    let n = 0;
    for (let w = 0; w < touched.length; w++) {
      for (let bits = touched[w]; bits !== 0; bits &= bits - 1) {
        const slot = (w << 5) + 31 - Math.clz32(bits & -bits);
        slots[count++] = slot;
        n += acc[slot] * acc[slot];
      }
    }
    this.slotCount = count;
    // a zero vector (empty or stop words only) stays zero: 0 / 1
    return n > 0 ? Math.sqrt(n) : 1;
  }
}

const NON_ASCII = /[^\x00-\x7f]/;
const NON_ASCII_ALL = /[^\x00-\x7f]/g;
const isAsciiSpace = (c: number) => c === 32 || (c >= 9 && c <= 13);
const WORD = 0;
const NGRAM = 1;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const fnvStep = (h: number, c: number) => Math.imul(h ^ c, FNV_PRIME);
/** FNV-1a state after the feature prefixes `w:` and `g:`. */
const WORD_SEED = fnvStep(fnvStep(FNV_OFFSET, 119 /* w */), 58 /* : */);
const NGRAM_SEED = fnvStep(fnvStep(FNV_OFFSET, 103 /* g */), 58 /* : */);
const LT = 60; // '<'
const GT = 62; // '>'
const MAX_STOP_WORD = Math.max(...[...STOP_WORDS].map((w) => w.length));

/** The words of an ASCII text: NFKD and mark stripping are the identity on ASCII, and its letters/digits are [a-z0-9] once lowercased. */
function addAsciiWords(counts: FeatureCounts, text: string): void {
  const lower = text.toLowerCase();
  let start = -1;
  for (let i = 0; i <= lower.length; i++) {
    const c = i < lower.length ? lower.charCodeAt(i) : 0;
    if ((c >= 97 && c <= 122) || (c >= 48 && c <= 57)) {
      if (start < 0) start = i;
    } else if (start >= 0) {
      addWord(counts, lower, start, i);
      start = -1;
    }
  }
}

/** Adds the features of the normalised word s[from, to): `w:<stem>` and the 3-grams of `<word>`. */
function addWord(counts: FeatureCounts, s: string, from: number, to: number): void {
  const len = to - from;
  let word: string | undefined;
  if (len <= MAX_STOP_WORD) {
    word = s.slice(from, to);
    if (STOP_WORDS.has(word)) return;
  }

  // lightStem only changes words longer than 3 that end in s (plurals) or y/g/d (-ly, -edly, -ingly, -ing, -ed)
  const last = s.charCodeAt(to - 1);
  let h = WORD_SEED;
  if (len > 3 && (last === 115 || last === 121 || last === 103 || last === 100)) {
    const stem = lightStem(word ?? s.slice(from, to));
    for (let i = 0; i < stem.length; i++) h = fnvStep(h, stem.charCodeAt(i));
  } else {
    for (let i = from; i < to; i++) h = fnvStep(h, s.charCodeAt(i));
  }
  counts.add(h, WORD, 1);

  // 3-grams of `<word>` (just `<w>` for a one-letter word)
  let a = LT;
  let b = s.charCodeAt(from);
  for (let i = from + 1; i <= to; i++) {
    const c = i < to ? s.charCodeAt(i) : GT;
    counts.add(fnvStep(fnvStep(fnvStep(NGRAM_SEED, a), b), c), NGRAM, NGRAM_WEIGHT);
    a = b;
    b = c;
  }
}


/** NFKD, combining marks removed, lowercased, split into letter/digit runs. */
export function normalisedWords(text: string): string[] {
  return text.normalize('NFKD').replace(/\p{M}+/gu, '').toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/**
 * A deliberately light English stemmer: plural and common verb/adverb endings only, never
 * leaving a stem shorter than three letters. ("running" → "run", "studies" → "study",
 * "connected" → "connect").
 */
export function lightStem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let w = word;
  if (w.endsWith('ies') && w.length > 4) w = `${w.slice(0, -3)}y`;
  else if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);

  for (const suffix of ['ingly', 'edly', 'ing', 'ed', 'ly']) {
    if (w.endsWith(suffix) && w.length - suffix.length >= 3) {
      w = w.slice(0, -suffix.length);
      // undo consonant doubling: running → runn → run
      if (suffix !== 'ly' && /([b-df-hj-np-tv-z])\1$/.test(w) && !/(ll|ss|zz)$/.test(w)) w = w.slice(0, -1);
      break;
    }
  }
  return w;
}
