/// <reference types="jest" />
import { ACTIVITY_LIMIT, ActivityStore, KeyRequest } from '../activity/activity-store.port';

export interface ActivityStoreFixture {
  store: ActivityStore;
  cleanup(): Promise<void>;
}

const req = (at: number, route = '/nodes', status = 200): KeyRequest => ({ at, method: 'GET', route, status });

/** One suite for every ActivityStore adapter (SQLite in the unit project, MongoDB with STRATA_MONGO_URL). */
export function describeActivityStoreConformance(name: string, open: () => Promise<ActivityStoreFixture>): void {
  describe(`ActivityStore conformance: ${name}`, () => {
    let f: ActivityStoreFixture;
    beforeEach(async () => {
      f = await open();
    });
    afterEach(async () => {
      await f.cleanup();
    });

    it('adds request counts per organization and month across writes', async () => {
      await f.store.write({ counts: [{ org_id: 'o1', period: '2026-11', n: 3 }, { org_id: 'o2', period: '2026-11', n: 1 }], keys: [] });
      await f.store.write({ counts: [{ org_id: 'o1', period: '2026-11', n: 2 }, { org_id: 'o1', period: '2026-12', n: 7 }], keys: [] });
      expect(await f.store.requestsInPeriod('o1', '2026-11')).toBe(5);
      expect(await f.store.requestsInPeriod('o1', '2026-12')).toBe(7);
      expect(await f.store.requestsInPeriod('o2', '2026-11')).toBe(1);
      expect(await f.store.requestsInPeriod('o3', '2026-11')).toBe(0);
    });

    it('keeps the newest requests of a key, newest first, however the writes interleave', async () => {
      const first = Array.from({ length: 40 }, (_, i) => req(1000 + i, `/a/${i}`));
      const second = Array.from({ length: 40 }, (_, i) => req(2000 + i, `/b/${i}`));
      await f.store.write({ counts: [], keys: [{ key_id: 'k1', org_id: 'o1', requests: second, last_used_at: 2039 }] });
      // an older batch flushed late (another replica) must not push newer requests out
      await f.store.write({ counts: [], keys: [{ key_id: 'k1', org_id: 'o1', requests: first, last_used_at: 1039 }] });
      const recent = await f.store.recentRequests('k1', ACTIVITY_LIMIT);
      expect(recent).toHaveLength(ACTIVITY_LIMIT);
      expect(recent[0]).toEqual(req(2039, '/b/39'));
      expect(recent.map((r) => r.at)).toEqual([...second.map((r) => r.at)].reverse().concat([1039, 1038, 1037, 1036, 1035, 1034, 1033, 1032, 1031, 1030]));
      expect(await f.store.recentRequests('k1', 3)).toEqual([req(2039, '/b/39'), req(2038, '/b/38'), req(2037, '/b/37')]);
      expect(await f.store.recentRequests('nope', ACTIVITY_LIMIT)).toEqual([]);
    });

    it('moves last use forward only, per key', async () => {
      await f.store.write({ counts: [], keys: [{ key_id: 'k1', org_id: 'o1', requests: [req(500)], last_used_at: 500 }, { key_id: 'k2', org_id: 'o1', requests: [req(10)], last_used_at: 10 }] });
      await f.store.write({ counts: [], keys: [{ key_id: 'k1', org_id: 'o1', requests: [req(400)], last_used_at: 400 }] });
      const last = await f.store.lastUsedAt(['k1', 'k2', 'k3']);
      expect(last.get('k1')).toBe(500);
      expect(last.get('k2')).toBe(10);
      expect(last.has('k3')).toBe(false);
      expect((await f.store.lastUsedAt([])).size).toBe(0);
    });
  });
}
