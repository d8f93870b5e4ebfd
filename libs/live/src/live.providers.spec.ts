import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EmbeddedLogSubscriptions } from './embedded/embedded-log-subscriptions';
import { logSubscriptionsFor } from './live.providers';
import { eventFromLog } from '@strata/domain/events';
import { FixedClock } from '@strata/domain/time';

describe('logSubscriptionsFor', () => {
  it('on embedded storage, delivers events when the unit of work reports its commit', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-live-p-'));
    const storage = new EmbeddedStorage(dir, { bootId: null, clock: new FixedClock() });
    try {
      const subs = logSubscriptionsFor(storage, null);
      expect(subs).toBeInstanceOf(EmbeddedLogSubscriptions);
      let got!: (type: string) => void;
      const arrived = new Promise<string>((r) => (got = r));
      const sub = subs.subscribe({ from: 'now' }, { event: (e) => got(e.type) });
      await sub.started;
      const meta = { org_id: 'o', principal: { kind: 'user' as const, id: 'u' }, request_id: 'r', correlation_id: null, occurred_at: 1 };
      await storage.events.append([{ stream: 'n-1', expectedRevision: 'any', events: [{ ...eventFromLog('Committed', {}), metadata: meta }] }]);
      storage.notifyCommitted([]);
      expect(await arrived).toBe('Committed');
      await subs.close();
    } finally {
      await storage.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('starts on a storage mode it cannot subscribe to, refusing only when a stream is asked for', async () => {
    const subs = logSubscriptionsFor(null, null);
    expect(() => subs.subscribe({ from: 'now' }, { event: () => undefined })).toThrow(/embedded log or KurrentDB/);
    await expect(subs.head()).rejects.toThrow(/embedded log or KurrentDB/);
    await expect(subs.close()).resolves.toBeUndefined();
  });
});
