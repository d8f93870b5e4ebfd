import { LexicalEmbedder, lightStem, normalisedWords } from './lexical-embedder';

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

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
});
