import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { request } from '../support/http';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { seedGraph, startService, tenant } from './cli-fixture';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

/** A graph snapshot without the moment it was taken. */
async function exported(url: string, key: string): Promise<Record<string, unknown>> {
  const r = await request(url, 'GET', '/export?include_tombstoned=true', { token: key });
  expect(r.status).toBe(200);
  const { exported_at, ...rest } = r.body;
  expect(typeof exported_at).toBe('number');
  return rest;
}

describe('strata export / strata import', () => {
  it('exports one organization and imports it into an empty one, giving the same graph', async () => {
    let t = await startService();
    const dataDir = t.dataDir;
    try {
      const a = await tenant(t.url);
      const b = await tenant(t.url);
      const { nodes } = await seedGraph(a.c, 700, 'exported');
      const person = (await a.c.post('/node', { label: 'Ada Lovelace', node_type: 'Person', props: { full_name: 'Ada Lovelace' } })).body.uid;
      expect((await a.c.post('/alias', { text: 'Countess of Lovelace', canonical_uid: person })).status).toBe(201);
      expect((await a.c.post('/reality/series', { action: 'create', label: 'kettle temperature', points: [{ ts: 10, value: 20 }, { ts: 20, value: 60, note: 'warming' }] })).status).toBe(201);
      expect((await a.c.post('/edge', { from_uid: person, to_uid: nodes[0], edge_type: 'RelatedTo' })).status).toBe(201);
      await a.c.delete(`/node/${nodes[5]}`);
      // every live node gets a decay clock, which the snapshot carries and the import restores (audit J3)
      expect((await a.c.post('/decay', { half_life_secs: 1e9 })).body).toMatchObject({ nodes_decayed: 701 });
      const snapshotFile = path.join(dataDir, 'a.snapshot.json');

      // export is a read: allowed while the service runs
      const out = expectExit(await runCli(['export', '--org', a.org_id, '--include-tombstoned', '--output', snapshotFile, '--data-dir', dataDir]), 0);
      expect(out.stderr).toMatch(/exported organization .*: 702 nodes, 699 edges, 1 alias, 0 embeddings, 2 series points/);
      const snapshot = JSON.parse(fs.readFileSync(snapshotFile, 'utf8'));
      expect(snapshot).toMatchObject({ format: 'strata.graph', format_version: 1 });
      expect(snapshot.nodes).toHaveLength(702);
      expect(snapshot.nodes.filter((n: any) => typeof n.last_decayed_at === 'number')).toHaveLength(701);
      expect(snapshot.nodes.find((n: any) => n.uid === nodes[5])).not.toHaveProperty('last_decayed_at');

      // the same bytes as GET /export, apart from the time it was taken
      const viaHttp = await exported(t.url, a.key);
      const { exported_at: _, ...fromCli } = snapshot;
      expect(fromCli).toEqual(viaHttp);

      // an import is a write: refused while a service owns the data dir
      const busy = await runCli(['import', '--org', b.org_id, '--input', snapshotFile, '--data-dir', dataDir]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toMatch(/^strata: a Strata service \(pid \d+\) is running on .*: stop it first, or make this change through its HTTP API\n$/);
      await t.close({ keepData: true });

      const imported = expectExit(await runCli(['import', '--org', b.org_id, '--data-dir', dataDir], { input: fs.readFileSync(snapshotFile, 'utf8') }), 0);
      expect(JSON.parse(imported.stdout)).toMatchObject({ nodes_imported: 702, nodes_skipped: 0, edges_imported: 699, aliases_imported: 1, series_points_imported: 2 });
      // additive and idempotent: a second import writes nothing
      const again = expectExit(await runCli(['import', '--org', b.org_id, '--input', snapshotFile, '--data-dir', dataDir]), 0);
      expect(JSON.parse(again.stdout)).toMatchObject({ nodes_imported: 0, nodes_skipped: 702, edges_imported: 0 });

      t = await startService({ dataDir });
      // the same graph, decay clocks included
      expect(await exported(t.url, b.key)).toEqual(await exported(t.url, a.key));
      // the CLI does not open the vector index: the service brings it up to date from the log at start-up
      const stats = async (key: string) => (await request(t.url, 'GET', '/stats', { token: key })).body;
      expect((await stats(a.key)).embedding_count).toBeGreaterThan(700);
      expect((await stats(b.key)).embedding_count).toBe((await stats(a.key)).embedding_count);
      // the import is on the audit trail as the operator's
      const audit = expectExit(await runCli(['audit', 'replay', '--org', b.org_id, '--kind', 'NodeCreated', '--format', 'jsonl', '--data-dir', dataDir]), 0);
      const first = JSON.parse(audit.stdout.split('\n')[0]);
      expect(first.principal).toMatch(/^system:cli/);
      expect(first.request_id).toMatch(/^cli-/);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  it('reports progress in the right units: megabytes read, objects staged, then the write and the commit', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const a = await tenant(t.url);
      const b = await tenant(t.url);
      await seedGraph(a.c, 1, 'template');
      const base = (await request(t.url, 'GET', '/export', { token: a.key })).body;
      await t.close({ keepData: true });
      // over 4 MB, so reading the file shows progress
      const template = base.nodes[0];
      const nodes = Array.from({ length: 2500 }, (_, i) => ({ ...template, uid: randomUUID(), label: `bulk ${i}`, props: { ...template.props, description: `${i} ${'x'.repeat(2000)}` } }));
      const file = path.join(dataDir, 'bulk.snapshot.json');
      fs.writeFileSync(file, JSON.stringify({ ...base, counts: { ...base.counts, nodes: nodes.length, edges: 0 }, nodes, edges: [] }));
      expect(fs.statSync(file).size).toBeGreaterThan(4 * 1024 * 1024);

      const r = expectExit(await runCli(['import', '--org', b.org_id, '-i', file, '--data-dir', dataDir]), 0);
      expect(JSON.parse(r.stdout)).toMatchObject({ nodes_imported: 2500 });
      const lines = r.stderr.trim().split('\n');
      const reading = lines.filter((l) => l.startsWith('reading snapshot'));
      expect(reading.length).toBeGreaterThan(0);
      expect(reading.every((l) => /\d+\/\d+ MB {2}[\d,]+ MB\/s/.test(l) && !l.includes('events'))).toBe(true);
      expect(reading[reading.length - 1]).toMatch(/^reading snapshot {2}100% {2}(\d+)\/\1 MB/);
      expect(lines).toContain(`importing 2,500 nodes, 0 edges, 0 aliases, 0 embeddings, 0 series points into organization ${b.org_id} (validated; one atomic write)…`);
      expect(lines.filter((l) => l.startsWith('staging')).pop()).toMatch(/^staging {2}100% {2}2,500\/2,500 objects/);
      const wrote = lines.findIndex((l) => /^wrote 2,500 events \(positions \d+–\d+\) to the log and the projections in \d+\.\d s$/.test(l));
      expect(wrote).toBeGreaterThan(0);
      expect(lines[lines.length - 2]).toMatch(/^committed in \d+\.\d s$/);
      expect(lines[lines.length - 1]).toMatch(new RegExp(`^imported into organization ${b.org_id} in \\d+\\.\\d s$`));
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('answers an unknown organization, bad JSON and an invalid snapshot with one line, writing nothing', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const a = await tenant(t.url);
      await t.close({ keepData: true });
      const head = async () => JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout)[0].head;
      const before = await head();

      const unknown = await runCli(['export', '--org', 'no-such-org', '--data-dir', dataDir]);
      expect([unknown.code, unknown.stderr]).toEqual([1, 'strata: organization no-such-org not found\n']);
      const notJson = await runCli(['import', '--org', a.org_id, '--data-dir', dataDir], { input: '{"format": "strata.graph", ' });
      expect(notJson.code).toBe(1);
      expect(notJson.stderr).toMatch(/^strata: the snapshot is not valid JSON: .*\n$/);
      // the parser quotes the input, line break included: the error is still one line
      const notJsonLine = await runCli(['import', '--org', a.org_id, '--data-dir', dataDir], { input: 'not json\n' });
      expect(notJsonLine.code).toBe(1);
      expect(notJsonLine.stderr).toMatch(/^strata: the snapshot is not valid JSON: [^\n]*"not json " is not valid JSON\n$/);
      const notObject = await runCli(['import', '--org', a.org_id, '--data-dir', dataDir], { input: '[1, 2]' });
      expect(notObject.stderr).toBe('strata: the snapshot must be a JSON object (a strata.graph snapshot, as written by `strata export`)\n');
      const invalid = await runCli(['import', '--org', a.org_id, '--data-dir', dataDir], { input: JSON.stringify({ format: 'strata.graph', format_version: 1, nodes: [{ uid: 'x' }] }) });
      expect(invalid.code).toBe(1);
      // a progress line, then the error in one line
      const lines = invalid.stderr.trim().split('\n');
      expect(lines.filter((l) => l.startsWith('strata:'))).toEqual([lines[lines.length - 1]]);
      expect(lines[lines.length - 1]).toMatch(/^strata: .*label is required.* \[missing_field\]$/);
      const noOrg = await runCli(['import', '--org', 'no-such-org', '--data-dir', dataDir], { input: JSON.stringify({ format: 'strata.graph', format_version: 1 }) });
      expect(noOrg.stderr).toBe('strata: organization no-such-org not found\n');
      expect(await head()).toBe(before);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
