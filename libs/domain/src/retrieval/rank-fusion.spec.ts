import { RRF_K, fuseByRank, hybridLegSize } from './rank-fusion';

describe('fuseByRank', () => {
  it('sums 1/(60 + rank) over the legs that returned a node', () => {
    const fused = fuseByRank([
      { leg: 'fts', hits: [{ uid: 'a', score: 9 }, { uid: 'b', score: 5 }] },
      { leg: 'vec', hits: [{ uid: 'b', score: 0.9 }, { uid: 'c', score: 0.8 }] },
    ]);
    expect(fused.map((f) => f.uid)).toEqual(['b', 'a', 'c']);
    expect(fused[0].score).toBeCloseTo(1 / (RRF_K + 2) + 1 / (RRF_K + 1), 15);
    expect(fused[0].legs).toEqual([
      { leg: 'fts', rank: 2, score: 5 },
      { leg: 'vec', rank: 1, score: 0.9 },
    ]);
    expect(fused[1].score).toBeCloseTo(1 / 61, 15);
  });

  it('ignores raw scores: only ranks are fused', () => {
    const a = fuseByRank([{ leg: 'x', hits: [{ uid: 'n', score: 1000 }] }]);
    const b = fuseByRank([{ leg: 'x', hits: [{ uid: 'n', score: 0.001 }] }]);
    expect(a[0].score).toBe(b[0].score);
  });

  it('counts a node once per leg even if the leg repeats it', () => {
    const fused = fuseByRank([{ leg: 'x', hits: [{ uid: 'n', score: 2 }, { uid: 'n', score: 1 }, { uid: 'm', score: 0 }] }]);
    expect(fused.find((f) => f.uid === 'm')!.legs[0].rank).toBe(2);
  });

  it('fetches max(5k, 50) candidates per leg', () => {
    expect(hybridLegSize(3)).toBe(50);
    expect(hybridLegSize(20)).toBe(100);
  });
});
