import { pageOfHistory, readHistoryPage } from './history-page';

const versions = [1, 2, 3, 4, 5].map((version) => ({ version }));

describe('history pages', () => {
  it('read from_version and limit with their defaults and cap, refusing bad values', () => {
    expect(readHistoryPage({})).toEqual({ from_version: 1, limit: 1000 });
    expect(readHistoryPage({ limit: 0 })).toEqual({ from_version: 1, limit: 0 });
    expect(readHistoryPage({ from_version: 3, limit: 5000 })).toEqual({ from_version: 3, limit: 1000 });
    for (const bad of [{ from_version: 0 }, { limit: -1 }, { limit: 1.5 }, { from_version: 'x' }])
      expect(() => readHistoryPage(bad)).toThrow(expect.objectContaining({ code: 'invalid_field' }));
  });

  it('start at from_version and stop at the limit or the byte budget, with at least one version', () => {
    expect(pageOfHistory(versions, { from_version: 1, limit: 2 }, () => 1).map((v) => v.version)).toEqual([1, 2]);
    expect(pageOfHistory(versions, { from_version: 4, limit: 100 }, () => 1).map((v) => v.version)).toEqual([4, 5]);
    expect(pageOfHistory(versions, { from_version: 1, limit: 100 }, () => 10, 25).map((v) => v.version)).toEqual([1, 2]);
    expect(pageOfHistory(versions, { from_version: 2, limit: 100 }, () => 1000, 25).map((v) => v.version)).toEqual([2]);
    expect(pageOfHistory(versions, { from_version: 9, limit: 100 }, () => 1)).toEqual([]);
  });
});
