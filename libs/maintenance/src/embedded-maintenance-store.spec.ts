import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { EmbeddedMaintenanceStore } from './embedded-maintenance-store';

describe('EmbeddedMaintenanceStore.afterClear', () => {
  let dir: string;
  let storage: EmbeddedStorage;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-compaction-'));
    storage = new EmbeddedStorage(dir);
  });
  afterEach(async () => {
    jest.useRealTimers();
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('compacts at once, then at most once per 10 minutes: clears in between get one compaction when the interval is over', async () => {
    const exclusive = jest.fn(async (fn: () => Promise<unknown>) => fn());
    const store = new EmbeddedMaintenanceStore(storage, { exclusive } as unknown as UnitOfWork);
    jest.useFakeTimers({ now: 1_000_000 });
    await store.afterClear();
    expect(exclusive).toHaveBeenCalledTimes(1);
    jest.setSystemTime(1_000_000 + 60_000);
    await store.afterClear();
    await store.afterClear();
    expect(exclusive).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(9 * 60_000);
    expect(exclusive).toHaveBeenCalledTimes(2);
    // the deferred compaction restarted the interval
    await store.afterClear();
    expect(exclusive).toHaveBeenCalledTimes(2);
  });
});
