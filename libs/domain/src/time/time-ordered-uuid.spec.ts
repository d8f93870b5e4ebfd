import { timeOrderedUuid } from './time-ordered-uuid';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedUuid', () => {
  it('is a lowercase canonical UUID of version 4 and the RFC variant', () => {
    for (let i = 0; i < 1000; i++) expect(timeOrderedUuid()).toMatch(V4);
  });

  it('carries the creation millisecond in its first 48 bits', () => {
    const ms = Date.UTC(2026, 10, 22, 21, 15, 0, 123) + 10_000_000;
    const u = timeOrderedUuid(ms);
    expect(parseInt(u.slice(0, 8) + u.slice(9, 13), 16)).toBe(ms);
  });

  it('sorts as text in the order of creation, so new rows go to the end of uid indexes', () => {
    const base = Date.now() + 20_000_000;
    const uids = Array.from({ length: 200 }, (_, i) => timeOrderedUuid(base + i * 7));
    expect([...uids].sort()).toEqual(uids);
  });

  it('does not go back in time when the clock does', () => {
    const t = Date.now() + 30_000_000;
    const first = timeOrderedUuid(t);
    const later = timeOrderedUuid(t - 60_000);
    expect(later.slice(0, 13)).toBe(first.slice(0, 13));
  });

  it('stays unique within one millisecond', () => {
    const t = Date.now() + 40_000_000;
    const uids = new Set(Array.from({ length: 100_000 }, () => timeOrderedUuid(t)));
    expect(uids.size).toBe(100_000);
  });
});
