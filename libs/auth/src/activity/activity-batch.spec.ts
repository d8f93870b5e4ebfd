import { monthPeriod } from '../plans/plan-limits';
import { ACTIVITY_LIMIT, RequestRecord } from './activity-store.port';
import { summarizeActivity } from './activity-batch';
import { at } from '@strata/domain/testing/fixed-time';

const rec = (org: string, key: string | null, at: number, route = '/nodes'): RequestRecord => ({ org_id: org, key_id: key, method: 'GET', route, status: 200, at });

describe('summarizeActivity', () => {
  it('counts every request per organization and month, keyed or not', () => {
    const nov = at('2026-11-30T23:59:00Z');
    const dec = at('2026-12-01T00:00:00Z');
    const b = summarizeActivity([rec('o1', 'k1', nov), rec('o1', null, nov), rec('o1', 'k1', dec), rec('o2', null, dec)], monthPeriod);
    expect(b.counts).toEqual([
      { org_id: 'o1', period: '2026-11', n: 2 },
      { org_id: 'o1', period: '2026-12', n: 1 },
      { org_id: 'o2', period: '2026-12', n: 1 },
    ]);
    expect(b.keys).toEqual([{ key_id: 'k1', org_id: 'o1', last_used_at: dec, requests: [{ at: nov, method: 'GET', route: '/nodes', status: 200 }, { at: dec, method: 'GET', route: '/nodes', status: 200 }] }]);
  });

  it('keeps only the newest requests of a busy key, oldest first, even when they arrive out of order', () => {
    const records = Array.from({ length: 120 }, (_, i) => rec('o1', 'k1', 1000 + ((i * 7) % 120), `/r/${(i * 7) % 120}`));
    const [k] = summarizeActivity(records, () => 'p').keys;
    expect(k.requests).toHaveLength(ACTIVITY_LIMIT);
    expect(k.requests[0].at).toBe(1070);
    expect(k.requests[ACTIVITY_LIMIT - 1].at).toBe(1119);
    expect(k.last_used_at).toBe(1119);
  });

  it('writes nothing for no requests', () => {
    expect(summarizeActivity([], () => 'p')).toEqual({ counts: [], keys: [] });
  });
});
