import { FixedClock } from '@strata/domain/time';
import { FixedWindowThrottlerStorage } from './fixed-window.storage';

describe('FixedWindowThrottlerStorage', () => {
  it('counts per key within a window, blocks over the limit, resets after the window', async () => {
    const clock = new FixedClock(1_000);
    const s = new FixedWindowThrottlerStorage(clock);
    for (let i = 1; i <= 3; i++) expect(await s.increment('k', 60_000, 3, 60_000, 'default')).toMatchObject({ totalHits: i, isBlocked: false, timeToExpire: 60 });
    clock.advance(30);
    expect(await s.increment('k', 60_000, 3, 60_000, 'default')).toEqual({ totalHits: 4, isBlocked: true, timeToExpire: 30, timeToBlockExpire: 30 });
    expect((await s.increment('other', 60_000, 3, 60_000, 'default')).totalHits).toBe(1);
    clock.advance(30);
    expect(await s.increment('k', 60_000, 3, 60_000, 'default')).toMatchObject({ totalHits: 1, isBlocked: false });
  });
});
