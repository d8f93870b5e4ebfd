import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { dumpRows, dumpSources } from '@strata/projections/embedded/canonical-dump';
import { TEXT_ORG_TABLE_RE } from '@strata/text-index/sqlite/sqlite-text-index';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { startService, tenant } from './cli-fixture';

/**
 * A log past the length where a rebuild reads and plans it on a second thread (the compiled
 * worker of replay-reader.ts): `strata projections rebuild` must give back exactly the rows
 * the service had built event by event, for the graph, the full-text index and accounts.
 */
function dumpOf(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'projections.db'));
  try {
    const sources = dumpSources(db).filter((s) => ['nodes', 'edges', 'aliases', 'text_orgs', 'acct_orgs', 'acct_users', 'acct_keys'].includes(s.table) || TEXT_ORG_TABLE_RE.test(s.table));
    return JSON.stringify(sources.map((s) => ({ table: s.table, rows: [...dumpRows(db, s)] })));
  } finally {
    db.close();
  }
}

describe('strata projections rebuild of a long log', () => {
  beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

  it('reads the log on a second thread and rebuilds the same rows the service wrote', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c } = await tenant(t.url);
      // 11 × (1,000 nodes + 999 edges): 21,989 graph events, past the parallel replay's threshold
      for (let b = 0; b < 11; b++) {
        const nodes = Array.from({ length: 1000 }, (_, i) => ({ ref: `n${i}`, label: `Batch ${b} claim ${i}`, node_type: 'Claim', props: { content: `statement ${b}.${i}` } }));
        const edges = Array.from({ length: 999 }, (_, i) => ({ from_ref: `n${i + 1}`, to_ref: `n${i}`, edge_type: 'Supports' }));
        expect((await c.post('/batch', { nodes, edges })).status).toBe(201);
      }
      const first = (await c.get('/nodes?limit=1')).body.items[0].uid as string;
      expect((await c.patch(`/node/${first}`, { label: 'Renamed after the batches' })).status).toBe(200);
      await t.close({ keepData: true });
      const before = dumpOf(dataDir);
      expect(before).toContain('Renamed after the batches');
      expect(before).toMatch(/"table":"text_fts_[0-9a-f]{16}"/);

      const rebuilt = expectExit(await runCli(['projections', 'rebuild', 'graph', 'text', 'accounts', '--data-dir', dataDir]), 0);
      expect(rebuilt.stdout).toMatch(/^rebuilt graph, text, accounts from [\d,]+ events/);
      expect(dumpOf(dataDir)).toEqual(before);
      expectExit(await runCli(['projections', 'verify', 'graph', 'text', 'accounts', '--data-dir', dataDir]), 0);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
