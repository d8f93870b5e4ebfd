import type { EmbeddingProvider } from '../embedding-provider.port';

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
  }

  async embed(texts: string[]): Promise<number[][]> {
    return texts.map((t) => Array.from(this.embedOne(t)));
  }

  /** Synchronous single-text form (hot path, benchmarks). */
  embedOne(text: string): Float64Array {
    const counts = new Map<string, number>();
    const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);

    for (const word of normalisedWords(text ?? '')) {
      if (STOP_WORDS.has(word)) continue;
      add(`w:${lightStem(word)}`, 1);
      const padded = `<${word}>`;
      if (padded.length <= 3) {
        add(`g:${padded}`, NGRAM_WEIGHT);
      } else {
        for (let i = 0; i + 3 <= padded.length; i++) add(`g:${padded.slice(i, i + 3)}`, NGRAM_WEIGHT);
      }
    }

    const v = new Float64Array(this.dimensions);
    for (const [feature, tf] of counts) {
      // tf is a weighted count; sublinear scaling relative to one occurrence of the feature
      const unit = feature.charCodeAt(0) === 119 /* w */ ? 1 : NGRAM_WEIGHT;
      const weight = unit * (1 + Math.log(tf / unit));
      const h = fnv1a(feature);
      const slot = h % this.dimensions;
      const sign = mix(h) & 1 ? -1 : 1;
      v[slot] += sign * weight;
    }
    let n = 0;
    for (let i = 0; i < v.length; i++) n += v[i] * v[i];
    if (n > 0) {
      n = Math.sqrt(n);
      for (let i = 0; i < v.length; i++) v[i] /= n;
    }
    return v;
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

/** 32-bit FNV-1a over UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** murmur3 finaliser: decorrelates the sign bit from the slot. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
