import { fmix32 } from '@strata/domain/hashing/fmix32';
import { LexicalEmbedder, lightStem, normalisedWords } from './lexical-embedder';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

/**
 * The embedder as it was before features were hashed from char codes (string features keyed
 * in a Map, every text through normalisedWords): the reference the fast version must match.
 */
function referenceEmbed(text: string, dimensions: number): number[] {
  const stopWords = new Set(
    (
      'a an and are as at be been but by can could did do does for from had has have he her his how i if in into is it its ' +
      'me my no not of on or our she so than that the their them then there these they this those to too us was we were ' +
      'what when where which who whom why will with would you your'
    ).split(' '),
  );
  const fnv1a = (s: string) => {
    let h = 0x811c9dc5;
    for (let i = 0; i < s.length; i++) {
      h ^= s.charCodeAt(i);
      h = Math.imul(h, 0x01000193);
    }
    return h >>> 0;
  };
  const mix = fmix32; // unchanged murmur3 finaliser
  const counts = new Map<string, number>();
  const add = (feature: string, weight: number) => counts.set(feature, (counts.get(feature) ?? 0) + weight);
  for (const word of normalisedWords(text ?? '')) {
    if (stopWords.has(word)) continue;
    add(`w:${lightStem(word)}`, 1);
    const padded = `<${word}>`;
    if (padded.length <= 3) add(`g:${padded}`, 0.3);
    else for (let i = 0; i + 3 <= padded.length; i++) add(`g:${padded.slice(i, i + 3)}`, 0.3);
  }
  const v = new Float64Array(dimensions);
  for (const [feature, tf] of counts) {
    const unit = feature.charCodeAt(0) === 119 ? 1 : 0.3;
    const weight = unit * (1 + Math.log(tf / unit));
    const h = fnv1a(feature);
    v[h % dimensions] += (mix(h) & 1 ? -1 : 1) * weight;
  }
  let n = 0;
  for (let i = 0; i < v.length; i++) n += v[i] * v[i];
  if (n > 0) {
    n = Math.sqrt(n);
    for (let i = 0; i < v.length; i++) v[i] /= n;
  }
  return Array.from(v);
}

/** Deterministic mix of the texts the service embeds: labels, prose, accents, CJK, emoji, digits, noise. */
function variedTexts(count: number): string[] {
  let seed = 12345;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const ascii = (
    'Quarterly revenue forecast engine repair running runs studies connected quickly class status bus falling ' +
    'kubernetes deployment deploymnt planning hopped stopped classes glasses buzzing fizzled happily ' +
    'API v2 HTTP_500 x y z I a 42 2024 3.14 e-mail node_type O\'Brien C++ #tag @user'
  ).split(' ');
  const stop = ['the', 'of', 'and', 'a', 'to', 'in', 'with', 'would', 'which', 'whom', 'I', 'THE'];
  const unicode = [
    'Crème', 'BRÛLÉE', 'naïve', 'Ångström', 'façade', 'ﬁnance', 'K', 'İstanbul', 'straße', 'ＦＵＬＬ', 'ｗｉｄｔｈ',
    '東京タワー', '日本語', '한국어', 'Привет', 'мир', 'مرحبا', 'Ελληνικά', '①②③', '½', 'x²', '👩‍💻', '🚀', '🇫🇷', 'e\u0301',
    '\ud800', 'ﬀ', 'Ǆemal', 'ŉ', 'café', 'résumé', 'Zoë', 'niño', 'Łódź',
    // final sigma: lowercasing reads the letters around Σ, across case-ignorable punctuation
    'ΟΔΟΣ', 'ΑΣ.Β', "ΣΑΣ'Α", 'Σ',
  ];
  const asciiSeparators = [' ', ' ', ' ', '  ', ', ', '. ', '-', '_', '/', '\n', '\t', '!', '?', "'"];
  const separators = [...asciiSeparators, '…', ' — ', ' · ', '\u00a0', '\f', '\v', '\r\n', '.'];
  const chars = 'abcXYZ019 -_.,;<>\'"éüß東😀\u0301\u00a0\u2028';
  const texts = ['', '   ', 'the of and', 'A', 'a b c', '😀', '東', '<>', 'ab', 'abc', 'THE THE THE'];
  while (texts.length < count) {
    const kind = rand();
    if (kind < 0.1) {
      // character noise
      texts.push(Array.from({ length: Math.floor(rand() * 30) }, () => pick([...chars])).join(''));
      continue;
    }
    const length = kind < 0.6 ? 1 + Math.floor(rand() * 8) : kind < 0.9 ? 20 + Math.floor(rand() * 60) : 200 + Math.floor(rand() * 400);
    const unicodeShare = rand() < 0.5 ? 0 : rand() * 0.5;
    const words: string[] = [];
    for (let i = 0; i < length; i++) {
      const r = rand();
      const word = r < unicodeShare ? pick(unicode) : r < unicodeShare + 0.2 ? pick(stop) : pick(ascii);
      words.push(rand() < 0.1 ? word.toUpperCase() : word);
      // repeats exercise the sublinear term frequency
      if (rand() < 0.1) words.push(word);
    }
    const seps = unicodeShare > 0 ? separators : asciiSeparators;
    texts.push(words.map((w, i) => (i === 0 ? w : pick(seps) + w)).join(''));
  }
  return texts;
}

describe('LexicalEmbedder', () => {
  const embedder = new LexicalEmbedder();

  it('names itself honestly', () => {
    expect(embedder.provider).toBe('builtin');
    expect(embedder.model).toBe('strata-lexical-v1');
    expect(embedder.lexical).toBe(true);
    expect(embedder.dimensions).toBe(384);
    expect(new LexicalEmbedder({ dimensions: 64 }).dimensions).toBe(64);
    expect(() => new LexicalEmbedder({ dimensions: 0 })).toThrow();
    expect(() => new LexicalEmbedder({ dimensions: 8193 })).toThrow();
  });

  it('returns L2-normalised vectors of the configured length, deterministically', async () => {
    const [a, b] = await embedder.embed(['Quarterly revenue forecast', 'Quarterly revenue forecast']);
    expect(a).toHaveLength(384);
    expect(Math.sqrt(cosine(a, a))).toBeCloseTo(1, 10);
    expect(a).toEqual(b);
    const [c] = await new LexicalEmbedder().embed(['Quarterly revenue forecast']);
    expect(c).toEqual(a);
    const [small] = await new LexicalEmbedder({ dimensions: 16 }).embed(['Quarterly revenue forecast']);
    expect(small).toHaveLength(16);
  });

  it('embeds empty and stop-word-only texts to the zero vector', async () => {
    const [empty, stop] = await embedder.embed(['', 'the of and']);
    expect(empty.every((x) => x === 0)).toBe(true);
    expect(stop.every((x) => x === 0)).toBe(true);
    expect(await embedder.embed([])).toEqual([]);
  });

  it('scores similar wording high and unrelated text near zero', async () => {
    const [q, close, inflected, accent, unrelated, unrelated2] = await embedder.embed([
      'repair the car engine',
      'engine repair for a car',
      'repairing car engines',
      'Café opening hours',
      'quarterly budget spreadsheet review',
      'migratory birds nesting in wetlands',
    ]);
    const [cafe] = await embedder.embed(['cafe opening hours']);
    expect(cosine(q, close)).toBeGreaterThan(0.8);
    expect(cosine(q, inflected)).toBeGreaterThan(0.6);
    expect(cosine(accent, cafe)).toBeGreaterThan(0.99);
    expect(Math.abs(cosine(q, unrelated))).toBeLessThan(0.15);
    expect(Math.abs(cosine(q, unrelated2))).toBeLessThan(0.15);
    expect(Math.abs(cosine(unrelated, unrelated2))).toBeLessThan(0.15);
    expect(cosine(q, close)).toBeGreaterThan(cosine(q, unrelated) + 0.5);
  });

  it('tolerates small spelling differences through character n-grams', async () => {
    const [a, b, c] = await embedder.embed(['kubernetes deployment', 'kubernets deploymnt', 'gardening tips']);
    expect(cosine(a, b)).toBeGreaterThan(0.3);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.3);
  });

  it('normalises words and stems lightly', () => {
    expect(normalisedWords('Crème BRÛLÉE, naïve-approach_2024!')).toEqual(['creme', 'brulee', 'naive', 'approach', '2024']);
    expect(lightStem('running')).toBe('run');
    expect(lightStem('runs')).toBe('run');
    expect(lightStem('studies')).toBe('study');
    expect(lightStem('connected')).toBe('connect');
    expect(lightStem('quickly')).toBe('quick');
    expect(lightStem('class')).toBe('class');
    expect(lightStem('status')).toBe('status');
    expect(lightStem('bus')).toBe('bus');
    expect(lightStem('falling')).toBe('fall');
  });

  it('produces exactly the vectors of the string-keyed reference algorithm', async () => {
    const texts = variedTexts(3000);
    for (const dimensions of [384, 64, 7, 1, 8192]) {
      const sample = dimensions === 384 ? texts : texts.slice(0, 300);
      const expected = sample.map((t) => referenceEmbed(t, dimensions));
      const embedder = new LexicalEmbedder({ dimensions });
      const one = sample.map((t) => Array.from(embedder.embedOne(t)));
      const batch = await embedder.embed(sample);
      // name the diverging texts first (a readable failure), then compare every component
      const same = (a: number[], b: number[]) => a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
      expect(sample.filter((t, i) => !same(one[i], expected[i]))).toEqual([]);
      expect(sample.filter((t, i) => !same(batch[i], expected[i]))).toEqual([]);
      expect(one).toEqual(expected);
      expect(batch).toEqual(expected);
    }
    expect(Array.from(embedder.embedOne(undefined as unknown as string))).toEqual(referenceEmbed('', 384));
  });

  it('does not carry anything from one text to the next', () => {
    const long = variedTexts(200).join(' ');
    const reused = new LexicalEmbedder();
    reused.embedOne(long);
    expect(reused.embedVector('repair the car engine')).toEqual(Array.from(new LexicalEmbedder().embedOne('repair the car engine')));
    expect(reused.embedVector('the of and')).toEqual(new Array(384).fill(0));
  });

  it('returns plain number arrays from embedVector, equal to embedOne', () => {
    const v = embedder.embedVector('Quarterly revenue forecast');
    expect(Array.isArray(v)).toBe(true);
    expect(v).toEqual(Array.from(embedder.embedOne('Quarterly revenue forecast')));
  });
});
