import { QuantizedVectors, quantizeForCosine, scaleGroup } from './quantized-vectors';
import { similarity } from './vector-math';

describe('quantizeForCosine', () => {
  it('maps the largest component to ±127 whatever the vector length', () => {
    const out = new Int8Array(3);
    quantizeForCosine([0.002, -0.004, 0.001], 0, out, 0, 3);
    expect(Array.from(out)).toEqual([64, -127, 32]);
    quantizeForCosine([200, 100, -50], 0, out, 0, 3);
    expect(Array.from(out)).toEqual([127, 64, -32]);
  });

  it('keeps the zero vector zero and reads and writes at offsets', () => {
    const out = new Int8Array(6).fill(9);
    quantizeForCosine([5, 0, 0, 0, 0, 0], 3, out, 3, 3);
    expect(Array.from(out)).toEqual([9, 9, 9, 0, 0, 0]);
  });

  it('keeps cosine similarity to within rounding', () => {
    const a = [0.31, -0.12, 0.05, 0.44, -0.27, 0.08];
    const b = [0.29, -0.1, -0.02, 0.4, -0.3, 0.11];
    const qa = new Int8Array(6);
    const qb = new Int8Array(6);
    quantizeForCosine(a, 0, qa, 0, 6);
    quantizeForCosine(b, 0, qb, 0, 6);
    expect(similarity('cosine', qa, qb)).toBeCloseTo(similarity('cosine', a, b), 2);
  });
});

describe('QuantizedVectors', () => {
  it('returns the nearest slots best first and never a cleared one', () => {
    const q = new QuantizedVectors(2, 2);
    q.ensureCapacity(4);
    q.set(0, [1, 0], 0);
    q.set(1, [0, 1], 0);
    q.set(2, [1, 1], 0);
    q.set(3, [1, 0.1], 0);
    expect(q.nearest([1, 0], 4, 3)).toEqual([0, 3, 2]);
    q.clear(0);
    expect(q.nearest([1, 0], 4, 2)).toEqual([3, 2]);
    // never more than are stored
    expect(q.nearest([1, 0], 4, 10)).toEqual([3, 2, 1]);
  });

  it('ranks vectors of every length and direction by cosine, whatever scale group holds them', () => {
    const q = new QuantizedVectors(3, 4);
    // one spiky and one spread direction, at lengths from 1e-6 to 1e6
    const rows = [
      [1e-6, 0, 0],
      [5e5, 4e5, 3e5],
      [0.9, 0.1, 0],
      [2e6, 2e6, 2e6],
    ];
    rows.forEach((v, slot) => q.set(slot, v, 0));
    expect(new Set(rows.map((v) => scaleGroup(v, 0, 3))).size).toBeGreaterThan(1);
    expect(q.nearest([1, 1, 1], 4, 4)).toEqual([3, 1, 2, 0]);
    expect(q.nearest([1, 0, 0], 4, 4)).toEqual([0, 2, 1, 3]);
  });

  it('offers a zero vector as a candidate scoring 0: above vectors pointing away, below those pointing along', () => {
    const q = new QuantizedVectors(2, 3);
    q.set(0, [-1, 0], 0);
    q.set(1, [0, 0], 0);
    q.set(2, [1, 0.2], 0);
    expect(q.nearest([1, 0], 3, 3)).toEqual([2, 1, 0]);
    expect(q.nearest([-1, 0], 3, 2)).toEqual([0, 1]);
    q.clear(1);
    expect(q.nearest([1, 0], 3, 3)).toEqual([2, 0]);
  });

  it('moves a slot between groups when its vector changes, and between them and the zero vectors', () => {
    const q = new QuantizedVectors(2, 2);
    q.set(0, [1, 0], 0);
    q.set(1, [1, 1], 0);
    q.set(0, [1, 0.9], 0); // a spread direction: the group of [1, 1]
    expect(scaleGroup([1, 0.9], 0, 2)).toBe(scaleGroup([1, 1], 0, 2));
    expect(scaleGroup([1, 0.9], 0, 2)).not.toBe(scaleGroup([1, 0], 0, 2));
    expect(q.nearest([0, 1], 2, 2)).toEqual([1, 0]);
    q.set(1, [0, 0], 0);
    expect(q.nearest([0, 1], 2, 2)).toEqual([0, 1]);
    q.set(1, [3, 0], 0);
    expect(q.nearest([1, 0], 2, 2)).toEqual([1, 0]);
  });
});

describe('QuantizedVectors across chunks', () => {
  it('finds the same nearest slots as one scan of every row, whatever the chunk boundaries and removals', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * 2 - 1;
    const d = 8;
    const n = 300;
    const vectors = Array.from({ length: n }, () => Array.from({ length: d }, rnd));
    const whole = new QuantizedVectors(d, n);
    const chunked = new QuantizedVectors(d, 1, 16 * d); // 16 rows a chunk: 19 chunks
    chunked.ensureCapacity(n);
    vectors.forEach((v, slot) => {
      whole.set(slot, v, 0);
      chunked.set(slot, v, 0);
    });
    // holes in the middle of chunks: the last rows move into them
    for (let slot = 5; slot < n; slot += 37) {
      whole.clear(slot);
      chunked.clear(slot);
    }
    for (let q = 0; q < 20; q++) {
      const query = Array.from({ length: d }, rnd);
      expect(chunked.nearest(query, n, 10)).toEqual(whole.nearest(query, n, 10));
    }
  });
});
