import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { api } from '../support/http';
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
        expect(row.projections_file).toMatchObject({ state: 'open', pid: process.pid });
      }
      await t.close({ keepData: true });
      const stopped = await statusJson(dataDir);
      for (const row of stopped) {
        expect(row.service).toEqual({ running: false, pid: null, url: null });
        expect(row.projections_file).toMatchObject({ state: 'closed', pid: process.pid });
      }
      const table = expectExit(await runCli(['projections', 'status', '--data-dir', dataDir]), 0).stdout;
      expect(table).toContain('service: not running');
      expect(table).toContain('projections file: flushed and closed cleanly');
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);

  it("notes projections past the log's head (a log older than its projections), which the service rebuilds", async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    const backup = path.join(dataDir, 'events.db.backup');
    try {
      const who = await tenant(t.url);
      await t.close({ keepData: true });
      fs.copyFileSync(path.join(dataDir, 'events.db'), backup);
      const later = await startService({ dataDir });
      expect((await api(later.url, who.key).post('/node', { node_type: 'Claim', label: 'after the backup' })).status).toBe(201);
      await later.close({ keepData: true });
      // the older log comes back beside the newer projections
      for (const s of ['-wal', '-shm']) fs.rmSync(path.join(dataDir, `events.db${s}`), { force: true });
      fs.copyFileSync(backup, path.join(dataDir, 'events.db'));
      const rows = await statusJson(dataDir);
      const graph = rows.find((r: { name: string }) => r.name === 'graph');
      expect(graph.checkpoint).toBeGreaterThan(graph.head);
      expect(graph.lag).toBe(0);
      expect(graph.note).toMatch(/past the log's head .*rebuilds it at start-up/);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
