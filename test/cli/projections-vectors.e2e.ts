import * as fs from 'node:fs';
import * as path from 'node:path';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { Api, api } from '../support/http';
import { seedGraph, startService, tamperVectors, tenant } from './cli-fixture';
import { eventually } from '@strata/domain/testing/eventually';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

const DIM = 384;
/** A client vector far from every lexical one: a few large components in a fixed pattern. */
const clientVector = (seed: number) => Array.from({ length: DIM }, (_, i) => ((i * 7 + seed * 13) % 29 === 0 ? 1 : 0.001 * ((i + seed) % 5)));

async function setVector(c: Api, uid: string, vector: number[]): Promise<void> {
  const r = await c.put(`/node/${uid}/embedding`, { vector });
  if (r.status !== 200) throw new Error(`PUT embedding: ${r.status} ${r.text}`);
}

async function searchUids(c: Api, vector: number[], k: number): Promise<{ uid: string; score: number }[]> {
  const r = await c.post('/embeddings/search', { vector, k });
  if (r.status !== 200) throw new Error(`search: ${r.status} ${r.text}`);
  return r.body.map((h: any) => ({ uid: h.node.uid, score: h.score }));
}

const leftovers = (dataDir: string) => fs.readdirSync(dataDir).filter((f) => f.startsWith('vectors.'));

describe('strata projections verify/rebuild vectors (no service running)', () => {
  it('finds a vector missing from the index and a damaged client vector, and a rebuild from the log restores both', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c, key, org_id } = await tenant(t.url);
      const { nodes } = await seedGraph(c, 120);
      const pinned = clientVector(1);
      await setVector(c, nodes[0], pinned);
      await c.delete(`/node/${nodes[9]}`);
      await t.close({ keepData: true }); // the service saves its index at shutdown

      const good = expectExit(await runCli(['projections', 'verify', 'vectors', '--data-dir', dataDir]), 0);
      expect(good.stdout).toMatch(/^vectors: identical to a fresh rebuild \(119 vectors in 1 organization, up to position \d+\)\n$/);

      tamperVectors(dataDir, org_id, (uids, vectors, d) => {
        uids[uids.indexOf(nodes[5])] = ''; // the slot freed: the vector is gone
        vectors[uids.indexOf(nodes[0]) * d + 3] += 0.5; // the recorded client vector altered
      });
      const bad = await runCli(['projections', 'verify', 'vectors', '--data-dir', dataDir]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/^vectors: differ from a fresh rebuild of the log \(2 differences, up to position \d+\):\n/);
      expect(bad.stdout).toContain(`vectors ("${org_id}", "${nodes[5]}"): in rebuilt, missing from live\n`);
      expect(bad.stdout).toMatch(new RegExp(`vectors \\("${org_id}", "${nodes[0]}"\\): component 3 is [\\d.e-]+ in live, ${pinned[3]} in rebuilt`));
      // the SQLite projections are untouched
      expectExit(await runCli(['projections', 'verify', 'graph', 'text', '--data-dir', dataDir]), 0);

      const rebuilt = expectExit(await runCli(['projections', 'rebuild', 'vectors', '--data-dir', dataDir]), 0);
      expect(rebuilt.stdout).toMatch(/^rebuilt vectors from [\d,]+ events in .*: 119 vectors in 1 organization; swapped in at position \d+\n$/);
      expect(rebuilt.stderr).toMatch(/rebuilding vectors .*100%/);
      expect(expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0).stdout).toMatch(/vectors: identical to a fresh rebuild/);
      expect(leftovers(dataDir)).toEqual([]);

      // the service starts on the rebuilt index and serves both vectors again
      const t2 = await startService({ dataDir });
      try {
        const c2 = api(t2.url, key);
        expect((await c2.get(`/node/${nodes[5]}/embedding`)).status).toBe(200);
        const restored = await c2.get(`/node/${nodes[0]}/embedding`);
        expect(restored.body.vector).toEqual(Array.from(Float32Array.from(pinned)));
        expect((await searchUids(c2, pinned, 1))[0].uid).toBe(nodes[0]);
        expect((await c2.get(`/node/${nodes[9]}/embedding`)).status).toBe(404);
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('strata projections rebuild vectors while the service takes writes', () => {
  it('hands the rebuilt index to the service: reads keep answering, no vector is lost, searches answer as before', async () => {
    const t = await startService({ captureLogs: true });
    try {
      // one organization is searched, the other written to meanwhile (spaces are per organization)
      const { c: searched } = await tenant(t.url);
      const { c } = await tenant(t.url);
      const seeded = await seedGraph(searched, 3000);
      await seedGraph(c, 500, 'other');
      const queries = [clientVector(1), clientVector(2), clientVector(3)];
      for (let i = 0; i < queries.length; i++) await setVector(searched, seeded.nodes[i * 10], queries[i]);
      queries.push((await searched.get(`/node/${seeded.nodes[500]}/embedding`)).body.vector as number[]);
      const before = await Promise.all(queries.map((q) => searchUids(searched, q, 10)));

      const acked: string[] = [];
      const pinnedDuring: { uid: string; vector: number[] }[] = [];
      const failures: string[] = [];
      let searches = 0;
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop; i++) {
          const r = await c.post('/node', { label: `written during the vector rebuild ${i}`, node_type: 'Claim', props: { content: `claim ${i}` } });
          if (r.status !== 201) {
            failures.push(`write ${r.status} ${r.text}`);
            continue;
          }
          acked.push(r.body.uid);
          if (i % 10 === 0) {
            const vector = clientVector(100 + i);
            const p = await c.put(`/node/${r.body.uid}/embedding`, { vector });
            if (p.status === 200) pinnedDuring.push({ uid: r.body.uid, vector });
            else failures.push(`embedding ${p.status} ${p.text}`);
          }
        }
      })();
      const reader = (async () => {
        for (let i = 0; !stop; i++) {
          const r = await searched.post('/embeddings/search', { vector: queries[i % queries.length], k: 5 });
          searches++;
          if (r.status !== 200 || r.body.length !== 5) failures.push(`search ${r.status} ${r.text.slice(0, 200)}`);
        }
      })();
      // writes and searches are under way before the rebuild starts
      await eventually(() => (acked.length >= 10 && searches >= 10) || failures.length > 0, { what: 'writes and searches under way', timeoutMs: 15_000 });
      const writtenBefore = acked.length;
      const rebuild = await runCli(['projections', 'rebuild', 'vectors', '--data-dir', t.dataDir], { timeoutMs: 180_000 });
      const during = acked.length - writtenBefore;
      // writes go on after the swap
      await eventually(() => acked.length >= writtenBefore + during + 10 || failures.length > 0, { what: 'writes after the swap', timeoutMs: 15_000 });
      stop = true;
      await Promise.all([writer, reader]);

      expectExit(rebuild, 0);
      expect(rebuild.stdout).toMatch(new RegExp(`^rebuilt vectors from [\\d,]+ events .*; swapped in by the running service \\(pid ${process.pid}\\) at position \\d+\\n$`));
      expect(rebuild.stderr).toMatch(/handing the rebuilt vector index over to the running service/);
      expect(t.logs.some((l) => /took over the vector index rebuilt beside, at position \d+/.test(l))).toBe(true);
      expect(failures).toEqual([]);
      expect(during).toBeGreaterThan(10);
      expect(searches).toBeGreaterThan(10);

      // every node written before, during and after the swap has its vector in the index
      const missing: string[] = [];
      for (const uid of acked) if ((await c.get(`/node/${uid}/embedding`)).status !== 200) missing.push(uid);
      expect(missing).toEqual([]);
      for (const p of pinnedDuring) expect((await searchUids(c, p.vector, 1))[0]).toMatchObject({ uid: p.uid });
      // an approximate index built in another order may swap near-ties in the tail of a top 10
      for (let i = 0; i < queries.length; i++) {
        const after = await searchUids(searched, queries[i], 10);
        expect(after[0]).toEqual(before[i][0]);
        expect(after.filter((h) => before[i].some((b) => b.uid === h.uid)).length).toBeGreaterThanOrEqual(9);
      }
      expect(leftovers(t.dataDir)).toEqual([]);

      // the index the service saved at the hand-over equals a fresh rebuild of the log
      const verify = expectExit(await runCli(['projections', 'verify', 'vectors', '--data-dir', t.dataDir], { timeoutMs: 180_000 }), 0);
      expect(verify.stdout).toMatch(/^vectors: identical to a fresh rebuild \([\d,]+ vectors in 2 organizations, up to position \d+\)\n$/);
    } finally {
      await t.close();
    }
  }, 300_000);
});

describe('strata projections status', () => {
  it('lists the vector index with the checkpoint it was last saved at', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c } = await tenant(t.url);
      await seedGraph(c, 40);
      await t.close({ keepData: true });
      const rows = JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout);
      const vectors = rows.find((r: any) => r.name === 'vectors');
      expect(vectors).toMatchObject({ lag: 0, last_error: null, note: expect.stringMatching(/last saved/), stored_version: vectors.version });
      expect(vectors.version).toEqual(expect.any(Number));
      expect(vectors.checkpoint).toBe(vectors.head);
      expect(vectors.head).toBeGreaterThan(40);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('a vector projection version bump', () => {
  it('is rebuilt beside at start-up while the service searches the previous index, then swapped in', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c, key } = await tenant(t.url);
      const { nodes } = await seedGraph(c, 2000);
      const pinned = clientVector(7);
      await setVector(c, nodes[3], pinned);
      await t.close({ keepData: true });
      // as if the projection's code had moved on: the saved index is one version older
      const stateFile = path.join(dataDir, 'vectors', 'retrieval-state.json');
      const state = JSON.parse(fs.readFileSync(stateFile, 'utf8'));
      const code = JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout).find((r: any) => r.name === 'vectors').version;
      fs.writeFileSync(stateFile, JSON.stringify({ ...state, projection_version: code - 1 }));
      const status = JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout);
      expect(status.find((r: any) => r.name === 'vectors')).toMatchObject({ stored_version: code - 1, note: expect.stringMatching(/built by version \d+: the service rebuilds it beside at start-up/) });
      const stale = await runCli(['projections', 'verify', 'vectors', '--data-dir', dataDir]);
      expect(stale.code).toBe(1);
      expect(stale.stdout).toMatch(/vectors: built by version \d+, the code is at version \d+: run `strata projections rebuild vectors`/);

      const t2 = await startService({ dataDir, captureLogs: true });
      try {
        const c2 = api(t2.url, key);
        // answering at once, from the previous index
        expect((await searchUids(c2, pinned, 1))[0].uid).toBe(nodes[3]);
        await eventually(() => t2.logs.some((l) => /rebuilt the vector index from the log and swapped it in/.test(l)), { what: 'the rebuild beside to be swapped in', timeoutMs: 20_000 }).catch(() => undefined);
        expect(t2.logs.join('\n')).toMatch(/vector index built by projection version \d+, the code is at \d+: serving it while a copy is rebuilt beside/);
        expect(t2.logs.join('\n')).toMatch(/rebuilt the vector index from the log and swapped it in at position \d+/);
        expect((await searchUids(c2, pinned, 1))[0].uid).toBe(nodes[3]);
        expect((await c2.get(`/node/${nodes[1500]}/embedding`)).status).toBe(200);
        const after = JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout).find((r: any) => r.name === 'vectors');
        expect(after.stored_version).toBe(after.version);
        expectExit(await runCli(['projections', 'verify', 'vectors', '--data-dir', dataDir]), 0);
        expect(leftovers(dataDir)).toEqual([]);
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('strata projections verify vectors after a configuration change', () => {
  it('a rebuild indexes each event against the configuration then in force, as the service did', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c, key } = await tenant(t.url);
      const { nodes } = await seedGraph(c, 300);
      await setVector(c, nodes[0], clientVector(4)); // 384-d: dropped with the old space
      const forced = await c.post('/embeddings/configure', { dimensions: 64, distance_metric: 'dot', force: true });
      expect(forced.status).toBe(200);
      await eventually(async () => (await c.get(`/jobs/${forced.body.job_id}`)).body.status === 'completed', { what: 'the re-embedding job', timeoutMs: 10_000 }).catch(() => undefined);
      const after = Array.from({ length: 64 }, (_, i) => (i % 9 === 0 ? 1 : 0));
      await setVector(c, nodes[1], after);
      await t.close({ keepData: true });

      const v = expectExit(await runCli(['projections', 'verify', 'vectors', '--data-dir', dataDir]), 0);
      expect(v.stdout).toMatch(/^vectors: identical to a fresh rebuild \(300 vectors in 1 organization, up to position \d+\)\n$/);
      expectExit(await runCli(['projections', 'rebuild', 'vectors', '--data-dir', dataDir]), 0);

      const t2 = await startService({ dataDir });
      try {
        const c2 = api(t2.url, key);
        expect((await c2.get(`/node/${nodes[0]}/embedding`)).body.dimension).toBe(64);
        expect((await searchUids(c2, after, 1))[0].uid).toBe(nodes[1]);
      } finally {
        await t2.close({ keepData: true });
      }
      expectExit(await runCli(['projections', 'verify', 'vectors', '--data-dir', dataDir]), 0);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
