import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { RecordedEvent, eventFromLog } from '@strata/domain/events';
import { describeLogSubscriptionsConformance } from '../testing/log-subscriptions.conformance';
import { FollowedLog, mirrorLogSubscriptions } from './mirror-log-subscriptions';

/** A mirror stand-in: it has applied the log up to `position`; `follow` applies one more event. */
class FakeMirror implements FollowedLog {
  position = 0;
  private readonly listeners: ((e: RecordedEvent) => void)[] = [];
  onFollowed(l: (e: RecordedEvent) => void): void {
    this.listeners.push(l);
  }
  follow(e: RecordedEvent): void {
    for (const l of this.listeners) l(e);
    this.position = e.position;
  }
}

const meta = { org_id: 'o', principal: { kind: 'user' as const, id: 'u' }, request_id: 'r', correlation_id: null, occurred_at: 1 };

describeLogSubscriptionsConformance('mirrorLogSubscriptions (SQLite log, a mirror that follows every commit)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-live-m-'));
  const store = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 3_600_000 });
  const mirror = new FakeMirror();
  const subs = mirrorLogSubscriptions(store, mirror);
  return {
    store,
    subs,
    committed: () =>
      void store.readAll({ after: mirror.position, limit: 1_000_000 }).then((page) => {
        for (const e of page) mirror.follow(e);
      }),
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('mirrorLogSubscriptions', () => {
  it('delivers an event only once the mirror applied it, in log order', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-live-m-'));
    const store = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 3_600_000 });
    const mirror = new FakeMirror();
    const subs = mirrorLogSubscriptions(store, mirror);
    const got: string[] = [];
    const sub = subs.subscribe({ from: 'now' }, { event: (e) => void got.push(e.type) });
    await sub.started;
    await store.append([{ stream: 's-1', expectedRevision: 'any', events: [{ ...eventFromLog('A', {}), metadata: meta }, { ...eventFromLog('B', {}), metadata: meta }] }]);
    const [a, b] = await store.readAll({ after: 0, limit: 10 });
    mirror.follow(a);
    for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    // B is in the log but not yet in the mirror's read models
    expect(got).toEqual(['A']);
    mirror.follow(b);
    for (let i = 0; i < 10 && got.length < 2; i++) await new Promise((r) => setImmediate(r));
    expect(got).toEqual(['A', 'B']);
    expect(await subs.head()).toBe(b.position);
    await subs.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
