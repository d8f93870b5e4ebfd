import { PrecomputedVectors } from './precomputed-vectors';

describe('PrecomputedVectors', () => {
  it('hands a vector out once, as a plain array, for its exact text and dimensions only', () => {
    const m = new PrecomputedVectors();
    m.offer(3, 'ash', Float64Array.from([0.5, 0, -0.5]));
    expect(m.take(4, 'ash')).toBeUndefined();
    expect(m.take(3, 'Ash')).toBeUndefined();
    const v = m.take(3, 'ash');
    expect(Array.isArray(v)).toBe(true);
    expect(v).toEqual([0.5, 0, -0.5]);
    expect(m.take(3, 'ash')).toBeUndefined();
    expect(m.count).toBe(0);
  });

  it('ignores a vector of the wrong length and, past its bound, drops the oldest offered first', () => {
    const m = new PrecomputedVectors(2);
    m.offer(2, 'short', [1]);
    m.offer(2, 'a', [1, 0]);
    m.offer(2, 'b', [0, 1]);
    m.offer(2, 'c', [1, 1]);
    expect(m.count).toBe(2);
    expect(m.take(2, 'short')).toBeUndefined();
    expect(m.take(2, 'a')).toBeUndefined();
    expect(m.take(2, 'b')).toEqual([0, 1]);
    expect(m.take(2, 'c')).toEqual([1, 1]);
  });
});
