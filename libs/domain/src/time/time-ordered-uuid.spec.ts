import { FixedClock } from './clock';
import { TimeOrderedUuids, timeOrderedUuid } from './time-ordered-uuid';

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const msOf = (u: string) => parseInt(u.slice(0, 8) + u.slice(9, 13), 16);

describe('time-ordered uids', () => {
  it('are lowercase canonical UUIDs of version 4 and the RFC variant', () => {
    for (let i = 0; i < 1000; i++) expect(timeOrderedUuid(1_800_000_000_000 + i)).toMatch(V4);
  });

  it('carry the creation millisecond of their clock in the first 48 bits', () => {
    const clock = new FixedClock(1_795_382_100.123);
    expect(msOf(new TimeOrderedUuids(clock).next())).toBe(1_795_382_100_123);
  });

  it('sort as text in the order of creation, so new rows go to the end of uid indexes', () => {
    const clock = new FixedClock(1_700_000_000);
    const ids = new TimeOrderedUuids(clock);
    const uids = Array.from({ length: 200 }, () => (clock.advance(0.007), ids.next()));
    expect([...uids].sort()).toEqual(uids);
  });

  it('do not go back in time when the clock does', () => {
    const clock = new FixedClock(1_700_000_000);
    const ids = new TimeOrderedUuids(clock);
    const first = ids.next();
    clock.advance(-60);
    expect(ids.next().slice(0, 13)).toBe(first.slice(0, 13));
  });

  it('keep their high-water mark per generator, not per process', () => {
    const late = new TimeOrderedUuids(new FixedClock(2_000_000_000));
    late.next();
    const early = new TimeOrderedUuids(new FixedClock(1_700_000_000));
    expect(msOf(early.next())).toBe(1_700_000_000_000);
  });

  it('stay unique within one millisecond', () => {
    const ids = new TimeOrderedUuids(new FixedClock(1_700_000_000));
    const uids = new Set(Array.from({ length: 100_000 }, () => ids.next()));
    expect(uids.size).toBe(100_000);
  });
});
