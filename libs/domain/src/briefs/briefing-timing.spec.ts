import { createHmac } from 'node:crypto';
import { assertBriefingTiming, catchUp, nextFireAfter } from './briefing-timing';
import { secretHint, signWebhook, webhookSecretOf } from './webhook-signature';
import { at } from '@strata/domain/testing/fixed-time';

const iso = (s: number | null) => (s === null ? null : new Date(s * 1000).toISOString());

describe('briefing schedule timing (REFERENCE §12.7)', () => {
  it('refuses what the field rules refuse', () => {
    expect(() => assertBriefingTiming({})).toThrow(expect.objectContaining({ code: 'missing_field' }));
    expect(() => assertBriefingTiming({ cron: '0 9 * * MON', interval_secs: 3600 })).toThrow(expect.objectContaining({ code: 'invalid_field' }));
    expect(() => assertBriefingTiming({ cron: '*/5 * * * *' })).toThrow(/at most hourly/);
    expect(() => assertBriefingTiming({ cron: '0 9 * *' })).toThrow(/5 fields/);
    expect(() => assertBriefingTiming({ interval_secs: 60 })).toThrow(/interval_secs/);
    expect(() => assertBriefingTiming({ cron: '0 9 * * MON', timezone: 'Mars/Olympus' })).toThrow(/time zone/);
    expect(() => assertBriefingTiming({ cron: '30 8 * JAN-MAR MON-FRI', timezone: 'Europe/Paris' })).not.toThrow();
  });

  it('reads cron in the zone across DST: a gap time fires at the first minute after the gap, a repeated time once', () => {
    const paris = { cron: '30 2 * * *', interval_secs: null, timezone: 'Europe/Paris', created_at: 0 };
    // 2026-03-29: clocks jump from 02:00 to 03:00 in Paris; 02:30 does not exist
    expect(iso(nextFireAfter(paris, at('2026-03-28T12:00:00Z')))).toBe('2026-03-29T01:00:00.000Z'); // 03:00 CEST
    expect(iso(nextFireAfter(paris, at('2026-03-29T01:00:00Z')))).toBe('2026-03-30T00:30:00.000Z'); // 02:30 CEST
    // 2026-10-25: 02:30 happens twice; it fires once
    const first = nextFireAfter(paris, at('2026-10-24T12:00:00Z'))!;
    expect(iso(first)).toBe('2026-10-25T00:30:00.000Z');
    expect(iso(nextFireAfter(paris, first))).toBe('2026-10-26T01:30:00.000Z');
  });

  it('counts intervals from creation, then after each scheduled time', () => {
    const t = { cron: null, interval_secs: 7200, timezone: 'UTC', created_at: 1000 };
    expect(nextFireAfter(t, 1000)).toBe(8200);
    expect(nextFireAfter(t, 8200)).toBe(15400);
    expect(nextFireAfter(t, 9000)).toBe(15400);
  });

  it('collapses missed fires into one catch-up when the latest is under one period old', () => {
    const t = { cron: null, interval_secs: 3600, timezone: 'UTC', created_at: 0 };
    // down from 3600 to 4 h 10 min: fires at 3600 … 14400 missed; the latest (14400) is 10 min old
    expect(catchUp(t, 3600, 15000)).toEqual({ catch_up: 14400, next_run_at: 18000 });
    const daily = { cron: '0 9 * * *', interval_secs: null, timezone: 'UTC', created_at: 0 };
    // stopped for three days: the latest missed 09:00 is 2 h old → caught up once
    expect(catchUp(daily, at('2026-01-01T09:00:00Z'), at('2026-01-04T11:00:00Z'))).toEqual({ catch_up: at('2026-01-04T09:00:00Z'), next_run_at: at('2026-01-05T09:00:00Z') });
    // nothing missed
    expect(catchUp(daily, at('2026-01-05T09:00:00Z'), at('2026-01-04T11:00:00Z')).catch_up).toBeNull();
  });
});

describe('Standard Webhooks signatures', () => {
  it('signs id.timestamp.body with the base64-decoded secret; both secrets during a rotation', () => {
    const a = webhookSecretOf(Buffer.alloc(32, 7));
    const b = webhookSecretOf(Buffer.alloc(32, 9));
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretHint(a)).toBe(a.slice(-4));
    const expected = createHmac('sha256', Buffer.alloc(32, 7)).update('run-1.1790000000.{"x":1}').digest('base64');
    expect(signWebhook([a], 'run-1', 1_790_000_000, '{"x":1}')).toBe(`v1,${expected}`);
    const both = signWebhook([b, a], 'run-1', 1_790_000_000, '{"x":1}').split(' ');
    expect(both).toHaveLength(2);
    expect(both[1]).toBe(`v1,${expected}`);
  });
});
