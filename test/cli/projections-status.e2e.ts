import * as fs from 'node:fs';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { startService, tenant } from './cli-fixture';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

const statusJson = async (dataDir: string) => JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout);

describe('strata projections status --json', () => {
  it('says on every row whether a service (and a rebuild) runs on the data dir, as the table does', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      await tenant(t.url);
      const running = await statusJson(dataDir);
      expect(running.length).toBeGreaterThanOrEqual(4);
      for (const row of running) {
        expect(row.service).toEqual({ running: true, pid: process.pid, url: t.url });
        expect(row.rebuild).toEqual({ running: false, pid: null });
      }
      await t.close({ keepData: true });
      const stopped = await statusJson(dataDir);
      for (const row of stopped) expect(row.service).toEqual({ running: false, pid: null, url: null });
      const table = expectExit(await runCli(['projections', 'status', '--data-dir', dataDir]), 0).stdout;
      expect(table).toContain('service: not running');
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
