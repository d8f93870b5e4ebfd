import { QuantizedVectors, quantizeForCosine } from './quantized-vectors';
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
  it('returns the nearest slots best first and never a cleared one before a live match', () => {
    const q = new QuantizedVectors(2, 2);
    q.ensureCapacity(4);
    q.set(0, [1, 0], 0);
    q.set(1, [0, 1], 0);
    q.set(2, [1, 1], 0);
    q.set(3, [1, 0.1], 0);
    expect(q.nearest([1, 0], 4, 3)).toEqual([0, 3, 2]);
    q.clear(0);
    expect(q.nearest([1, 0], 4, 2)).toEqual([3, 2]);
    // never more than exist
    expect(q.nearest([1, 0], 4, 10)).toHaveLength(4);
  });
});

describe('QuantizedVectors across chunks', () => {
  it('finds the same nearest slots as one scan of every row, whatever the chunk boundaries', () => {
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
    for (let q = 0; q < 20; q++) {
      const query = Array.from({ length: d }, rnd);
      expect(chunked.nearest(query, n, 10)).toEqual(whole.nearest(query, n, 10));
    }
  });
});
