import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SqliteEventStore } from '@strata/event-store';
import { describeLogSubscriptionsConformance } from '../testing/log-subscriptions.conformance';
import { CommitSignal } from './commit-signal';
import { EmbeddedLogSubscriptions } from './embedded-log-subscriptions';
import { eventFromLog } from '@strata/domain/events';

describeLogSubscriptionsConformance('EmbeddedLogSubscriptions (SQLite)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-live-'));
  // a poll interval far beyond any test: delivery must come from the commit signal, not polling
  const store = new SqliteEventStore(path.join(dir, 'events.db'), { pollIntervalMs: 3_600_000 });
  const signal = new CommitSignal();
  const subs = new EmbeddedLogSubscriptions(store, signal);
  return {
    store,
    subs,
    committed: () => signal.notifyCommitted(),
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('EmbeddedLogSubscriptions', () => {
  it('reads nothing while idle: an uncommitted-signal append is only seen at the next signal', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-live-'));
    const store = new SqliteEventStore(path.join(dir, 'events.db'));
    const signal = new CommitSignal();
    const subs = new EmbeddedLogSubscriptions(store, signal);
    const reads = jest.spyOn(store, 'readAll');
    const got: string[] = [];
    let arrived!: () => void;
    const one = new Promise<void>((r) => (arrived = r));
    const sub = subs.subscribe({ from: 'now' }, { event: (e) => (got.push(e.type), arrived()) });
    await sub.started;
    await new Promise((r) => setImmediate(r));
    const idleReads = reads.mock.calls.length;
    const meta = { org_id: 'o', principal: { kind: 'user' as const, id: 'u' }, request_id: 'r', correlation_id: null, occurred_at: 1 };
    await store.append([{ stream: 's-1', expectedRevision: 'any', events: [{ ...eventFromLog('T', {}), metadata: meta }] }]);
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    expect(reads.mock.calls.length).toBe(idleReads);
    expect(got).toEqual([]);
    signal.notifyCommitted();
    await one;
    expect(got).toEqual(['T']);
    await subs.close();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
