import { ActivityBatch, ActivityStore, RequestRecord } from '@strata/auth/activity/activity-store.port';
import { SqliteActivityStore } from '@strata/auth/activity/sqlite-activity-store';
import { RequestActivity } from './request-activity';
import { at as atInstant } from '@strata/domain/testing/fixed-time';

const at = atInstant('2026-11-22T12:00:00Z');
const rec = (key: string | null, t: number, route = '/nodes'): RequestRecord => ({ org_id: 'o1', key_id: key, method: 'GET', route, status: 200, at: t });

/** The SQLite store, with writes that can be held open or made to fail (a slow or unreachable MongoDB). */
class ControlledStore implements ActivityStore {
  readonly inner = new SqliteActivityStore(':memory:');
  fail = false;
  hold: Promise<void> | null = null;
  async write(b: ActivityBatch) {
    if (this.hold) await this.hold;
    if (this.fail) throw new Error('unreachable');
    await this.inner.write(b);
  }
  recentRequests(k: string, n: number) {
    return this.inner.recentRequests(k, n);
  }
  lastUsedAt(ids: string[]) {
    return this.inner.lastUsedAt(ids);
  }
  requestsInPeriod(o: string, p: string) {
    return this.inner.requestsInPeriod(o, p);
  }
  close() {
    return this.inner.close();
  }
}

describe('RequestActivity', () => {
  let store: ControlledStore;
  let activity: RequestActivity;
  beforeEach(() => {
    store = new ControlledStore();
    activity = new RequestActivity(store);
  });
  afterEach(async () => {
    store.fail = false;
    store.hold = null;
    await activity.close();
  });

  it('shows a request at once, and the same once written (counted once)', async () => {
    activity.record(rec('k1', at));
    activity.record(rec(null, at + 1));
    expect(await activity.requestsInPeriod('o1', '2026-11')).toBe(2);
    expect((await activity.recentRequests('k1')).map((r) => r.at)).toEqual([at]);
    expect((await activity.lastUsedAt(['k1'])).get('k1')).toBe(at);
    await activity.flush();
    expect(await store.inner.requestsInPeriod('o1', '2026-11')).toBe(2);
    expect(await activity.requestsInPeriod('o1', '2026-11')).toBe(2);
    expect(await activity.recentRequests('k1')).toEqual([{ at, method: 'GET', route: '/nodes', status: 200 }]);
  });

  it('two identical requests in the same instant are both shown, one stored and one still buffered', async () => {
    activity.record(rec('k1', at));
    await activity.flush();
    activity.record(rec('k1', at));
    expect((await activity.recentRequests('k1')).map((r) => r.at)).toEqual([at, at]);
    await activity.flush();
    expect((await activity.recentRequests('k1')).map((r) => r.at)).toEqual([at, at]);
  });

  it('a request being written is shown once, and one recorded meanwhile waits for the next write', async () => {
    let release!: () => void;
    store.hold = new Promise((r) => (release = r));
    activity.record(rec('k1', at, '/a'));
    const writing = activity.flush();
    activity.record(rec('k1', at + 1, '/b'));
    expect((await activity.recentRequests('k1')).map((r) => r.route)).toEqual(['/b', '/a']);
    expect(await activity.requestsInPeriod('o1', '2026-11')).toBe(2);
    release();
    await writing;
    expect(await store.inner.requestsInPeriod('o1', '2026-11')).toBe(1);
    expect((await activity.recentRequests('k1')).map((r) => r.route)).toEqual(['/b', '/a']);
    await activity.flush();
    expect(await store.inner.requestsInPeriod('o1', '2026-11')).toBe(2);
  });

  it('keeps requests whose write failed and writes them next time', async () => {
    store.fail = true;
    activity.record(rec('k1', at));
    await activity.flush();
    expect(await activity.requestsInPeriod('o1', '2026-11')).toBe(1);
    store.fail = false;
    await activity.flush();
    expect(await store.inner.requestsInPeriod('o1', '2026-11')).toBe(1);
    expect(await activity.requestsInPeriod('o1', '2026-11')).toBe(1);
  });

  it('writes what is buffered when it closes, and records nothing after', async () => {
    const writes = jest.spyOn(store.inner, 'write');
    const closed = jest.spyOn(store.inner, 'close');
    activity.record(rec('k1', at));
    await activity.close();
    expect(writes).toHaveBeenCalledTimes(1);
    expect(writes.mock.calls[0][0].counts).toEqual([{ org_id: 'o1', period: '2026-11', n: 1 }]);
    expect(closed).toHaveBeenCalled();
    activity.record(rec('k1', at + 5));
    await activity.flush();
    expect(writes).toHaveBeenCalledTimes(1);
  });
});
