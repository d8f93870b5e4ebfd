import { RANKED_MAX, TIE_SLACK, fetchThroughTies, sortByScore, tieWindow } from './ranked-page';

/** An index that ranks by score and cuts ties in an order of its own (insertion order). */
function fakeIndex(hits: { uid: string; score: number }[]) {
  const calls: number[] = [];
  const byScore = [...hits].sort((a, b) => b.score - a.score); // stable: ties stay in insertion order
  return {
    calls,
    fetch: async (n: number) => {
      calls.push(n);
      return byScore.slice(0, n);
    },
  };
}

describe('fetchThroughTies', () => {
  it('fetches the page plus one hit, once, when nothing ties the boundary', async () => {
    const idx = fakeIndex(Array.from({ length: 50 }, (_, i) => ({ uid: `u${i}`, score: 100 - i })));
    const hits = await fetchThroughTies(idx.fetch, 5);
    expect(idx.calls).toEqual([5 + TIE_SLACK]);
    expect(hits.map((h) => h.uid)).toEqual(Array.from({ length: 5 + TIE_SLACK }, (_, i) => `u${i}`));
  });

  it('keeps asking until every hit tying the boundary score is in', async () => {
    const tied = Array.from({ length: 40 }, (_, i) => ({ uid: `t${String(i).padStart(2, '0')}`, score: 1 }));
    const idx = fakeIndex([{ uid: 'top', score: 2 }, ...tied, { uid: 'low', score: 0.5 }]);
    const hits = await fetchThroughTies(idx.fetch, 3);
    expect(idx.calls).toEqual([4, 8, 16, 32, 64]);
    expect(hits).toHaveLength(42);
    expect(hits[hits.length - 1].uid).toBe('low');
  });

  it('returns everything when fewer hits match, and nothing for an empty page', async () => {
    const idx = fakeIndex([{ uid: 'a', score: 1 }, { uid: 'b', score: 1 }]);
    expect((await fetchThroughTies(idx.fetch, 1)).map((h) => h.uid)).toEqual(['a', 'b']);
    expect(await fetchThroughTies(idx.fetch, 0)).toEqual([]);
  });

  it('never asks for more than RANKED_MAX hits, however far down the page is', async () => {
    const idx = fakeIndex([{ uid: 'a', score: 1 }]);
    expect(await fetchThroughTies(idx.fetch, 1e20)).toHaveLength(1);
    expect(idx.calls).toEqual([RANKED_MAX]);
  });

  it('stops at max, leaving the index cut there', async () => {
    const idx = fakeIndex(Array.from({ length: 100 }, (_, i) => ({ uid: `u${i}`, score: 1 })));
    expect(await fetchThroughTies(idx.fetch, 2, 20)).toHaveLength(20);
    expect(idx.calls).toEqual([3, 6, 12, 20]);
  });
});

describe('tieWindow', () => {
  const hits = [5, 4, 4, 4, 3, 2, 2, 1].map((score, i) => ({ uid: `u${i}`, score }));

  it('widens the page to the hits tying its first and last score', () => {
    expect(tieWindow(hits, 0, 1)).toEqual({ from: 0, to: 1 });
    expect(tieWindow(hits, 0, 2)).toEqual({ from: 0, to: 4 });
    expect(tieWindow(hits, 2, 1)).toEqual({ from: 1, to: 4 });
    expect(tieWindow(hits, 3, 3)).toEqual({ from: 1, to: 7 });
    expect(tieWindow(hits, 7, 5)).toEqual({ from: 7, to: 8 });
  });

  it('is empty past the end', () => {
    expect(tieWindow(hits, 8, 3)).toEqual({ from: 0, to: 0 });
    expect(tieWindow(hits, 2, 0)).toEqual({ from: 0, to: 0 });
  });
});

describe('sortByScore', () => {
  it('leaves sorted hits alone and sorts others by score, then uid', () => {
    const sorted = [
      { uid: 'a', score: 2 },
      { uid: 'b', score: 1 },
      { uid: 'c', score: 1 },
    ];
    expect(sortByScore(sorted)).toBe(sorted);
    expect(sortByScore([sorted[2], sorted[0], sorted[1]])).toEqual(sorted);
  });
});
