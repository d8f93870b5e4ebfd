import { nextSlot, assertValidTiming } from './schedule-slots';
import { at } from '@strata/domain/testing/fixed-time';

const iso = (s: number | null) => (s === null ? null : new Date(s * 1000).toISOString());
const slots = (t: Parameters<typeof nextSlot>[0], fromIso: string, n: number) => {
  const out: (string | null)[] = [];
  let s: number | null = at(fromIso);
  for (let i = 0; i < n && s !== null; i++) out.push(iso((s = nextSlot(t, s))));
  return out;
};

describe('schedule slots', () => {
  const paris = (cron: string) => ({ cron, timezone: 'Europe/Paris' });

  it('reads a cron pattern in its time zone', () => {
    // 09:00 in Paris is 08:00 UTC in winter, 07:00 UTC in summer
    expect(slots(paris('0 9 * * *'), '2026-01-10T12:00:00Z', 2)).toEqual(['2026-01-11T08:00:00.000Z', '2026-01-12T08:00:00.000Z']);
    expect(slots(paris('0 9 * * *'), '2026-07-10T12:00:00Z', 1)).toEqual(['2026-07-11T07:00:00.000Z']);
    expect(slots({ cron: '0 9 * * *' }, '2026-07-10T12:00:00Z', 1)).toEqual(['2026-07-11T09:00:00.000Z']);
  });

  it('is strictly after the given time', () => {
    expect(iso(nextSlot(paris('0 9 * * *'), at('2026-01-11T08:00:00Z')))).toBe('2026-01-12T08:00:00.000Z');
    expect(nextSlot({ interval_s: 3600 }, at('2026-01-11T08:00:00Z'))).toBe(at('2026-01-11T09:00:00Z'));
    expect(nextSlot({ interval_s: 3600 }, at('2026-01-11T08:59:59Z'))).toBe(at('2026-01-11T09:00:00Z'));
  });

  it('keeps a daily local time across the spring-forward change, shifting a time in the gap by the gap', () => {
    // Paris, 29 March 2026: 02:00 CET becomes 03:00 CEST
    expect(slots(paris('0 9 * * *'), '2026-03-27T12:00:00Z', 3)).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T07:00:00.000Z', '2026-03-30T07:00:00.000Z']);
    // 02:30 does not exist that night: it fires at 03:30 CEST (01:30 UTC), then at 02:30 CEST
    expect(slots(paris('30 2 * * *'), '2026-03-28T12:00:00Z', 2)).toEqual(['2026-03-29T01:30:00.000Z', '2026-03-30T00:30:00.000Z']);
    // a pattern that fires at 03:00 of its own fires at 03:00
    expect(slots(paris('0 3 * * *'), '2026-03-28T12:00:00Z', 1)).toEqual(['2026-03-29T01:00:00.000Z']);
    // computed from inside the shifted window, the shifted firing still comes
    expect(iso(nextSlot(paris('30 2 * * *'), at('2026-03-29T01:10:00Z')))).toBe('2026-03-29T01:30:00.000Z');
  });

  it('fires a fixed local time once in the repeated hour of the fall-back change, and every-hour patterns every hour', () => {
    // Paris, 25 October 2026: 03:00 CEST becomes 02:00 CET; 02:30 happens twice
    expect(slots(paris('30 2 * * *'), '2026-10-24T12:00:00Z', 2)).toEqual(['2026-10-25T00:30:00.000Z', '2026-10-26T01:30:00.000Z']);
    expect(slots(paris('0 * * * *'), '2026-10-24T23:30:00Z', 4)).toEqual([
      '2026-10-25T00:00:00.000Z', // 02:00 CEST
      '2026-10-25T01:00:00.000Z', // 02:00 CET
      '2026-10-25T02:00:00.000Z',
      '2026-10-25T03:00:00.000Z',
    ]);
  });

  it('rejects what is not one valid timing, naming the field', () => {
    const field = (t: Parameters<typeof assertValidTiming>[0]) => {
      try {
        assertValidTiming(t);
        return null;
      } catch (err) {
        const e = err as { status: number; context: { field: string }; message: string };
        return `${e.status}:${e.context.field}:${e.message}`;
      }
    };
    expect(field({ cron: '*/5 * * * *', timezone: 'Europe/Paris' })).toBeNull();
    expect(field({ cron: '@daily' })).toBeNull();
    expect(field({ interval_s: 60 })).toBeNull();
    expect(field({ cron: 'bad' })).toMatch(/^400:cron:/);
    expect(field({ cron: '0 0 * * * *' })).toMatch(/^400:cron:/);
    expect(field({ cron: '61 * * * *' })).toMatch(/^400:cron:/);
    expect(field({ cron: '0 0 30 2 *' })).toMatch(/^400:cron:.*never fires/);
    expect(field({ cron: '* * * * *', timezone: 'Mars/Olympus' })).toMatch(/^400:timezone:/);
    expect(field({ interval_s: 0 })).toMatch(/^400:interval_s:/);
    expect(field({ cron: '* * * * *', interval_s: 60 })).toMatch(/^400/);
    expect(field({})).toMatch(/^400/);
  });
});
