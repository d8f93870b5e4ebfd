import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { EmbeddedMaintenanceStore } from './embedded-maintenance-store';
import { FixedClock } from '@strata/domain/time';

describe('EmbeddedMaintenanceStore.afterClear', () => {
  let dir: string;
  let storage: EmbeddedStorage;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-compaction-'));
    storage = new EmbeddedStorage(dir, { clock: new FixedClock() });
  });
  afterEach(async () => {
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('compacts at once, then at most once per 10 minutes: clears in between get one compaction when the interval is over', async () => {
    const exclusive = jest.fn(async (fn: () => Promise<unknown>) => fn());
    const clock = new FixedClock(1_000);
    const store = new EmbeddedMaintenanceStore(storage, { exclusive } as unknown as UnitOfWork, clock);
    await store.afterClear();
    expect(exclusive).toHaveBeenCalledTimes(1);
    clock.advance(60);
    await store.afterClear();
    await store.afterClear();
    expect(exclusive).toHaveBeenCalledTimes(1);
    clock.advance(8 * 60);
    expect(await store.compactIfDue()).toBe(false);
    expect(exclusive).toHaveBeenCalledTimes(1);
    clock.advance(60);
    expect(await store.compactIfDue()).toBe(true);
    expect(exclusive).toHaveBeenCalledTimes(2);
    // the deferred compaction restarted the interval, and ran only once for both clears
    expect(await store.compactIfDue()).toBe(false);
    await store.afterClear();
    expect(exclusive).toHaveBeenCalledTimes(2);
  });

  it('has nothing to compact when no clear asked for it', async () => {
    const exclusive = jest.fn(async (fn: () => Promise<unknown>) => fn());
    const store = new EmbeddedMaintenanceStore(storage, { exclusive } as unknown as UnitOfWork, new FixedClock(1_000));
    expect(await store.compactIfDue()).toBe(false);
    expect(exclusive).not.toHaveBeenCalled();
  });
});
