import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from './cli-runner';
import { api } from '../support/http';
import { reopenService, seedGraph, startService, tamperProjections, tenant } from './cli-fixture';
import { eventually } from '@strata/domain/testing/eventually';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

/** The table name suffix of the one organization with full-text rows. */
function textTablesOf(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'projections.db'), { readonly: true });
  try {
    const names = db.prepare('SELECT name FROM text_orgs').pluck().all() as string[];
    expect(names).toHaveLength(1);
    return names[0];
  } finally {
    db.close();
  }
}

const statusOf = async (dataDir: string) => JSON.parse(expectExit(await runCli(['projections', 'status', '--json', '--data-dir', dataDir]), 0).stdout);

describe('strata projections status', () => {
  it("shows every projection's version, checkpoint, the head and lag, and the running service", async () => {
    const t = await startService();
    try {
      const { c } = await tenant(t.url);
      await seedGraph(c, 20);
      const table = expectExit(await runCli(['projections', 'status', '--data-dir', t.dataDir]), 0).stdout;
      expect(table).toMatch(/^PROJECTION\s+VERSION\s+STORED\s+CHECKPOINT\s+HEAD\s+LAG/);
      expect(table).toContain(`service: running (pid ${process.pid}`);
      const rows = await statusOf(t.dataDir);
      const byName = Object.fromEntries(rows.map((r: any) => [r.name, r]));
      expect(Object.keys(byName)).toEqual(expect.arrayContaining(['graph', 'text', 'accounts', 'vectors']));
      for (const name of ['graph', 'text', 'accounts']) {
        expect(byName[name]).toMatchObject({ stored_version: byName[name].version, lag: 0, last_error: null });
        expect(byName[name].checkpoint).toBe(byName[name].head);
        expect(byName[name].head).toBeGreaterThan(20);
      }
      // the vector index is listed with the checkpoint the service last saved it at
      expect(byName.vectors).toMatchObject({ version: expect.any(Number), last_error: null, head: byName.graph.head });
      expect(byName.vectors.note).toMatch(/saved/);
      expect(table).toMatch(/^vectors\s/m);
    } finally {
      await t.close();
    }
  });
});

describe('strata projections rebuild and verify (no service running)', () => {
  it('finds a deliberately corrupted projection, prints the first differences, and a rebuild repairs it', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c } = await tenant(t.url);
      const { nodes } = await seedGraph(c, 50);
      await c.delete(`/node/${nodes[3]}`);
      await t.close({ keepData: true });

      expect(expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0).stdout).toMatch(/identical to a fresh rebuild/);

      expect(tamperProjections(dataDir, 'UPDATE nodes SET salience = 0.123 WHERE uid = ?', nodes[7])).toBe(1);
      expect(tamperProjections(dataDir, 'DELETE FROM edges WHERE rowid = (SELECT min(rowid) FROM edges)')).toBe(1);
      const bad = await runCli(['projections', 'verify', '--data-dir', dataDir]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toMatch(/differ from a fresh rebuild/);
      expect(bad.stdout).toContain(`nodes (`);
      expect(bad.stdout).toMatch(new RegExp(`nodes \\("[^"]+", "${nodes[7]}"\\): salience is 0.123 in live, 0.5 in rebuilt`));
      expect(bad.stdout).toMatch(/edges \(.*\): in rebuilt, missing from live/);
      // only the graph projection was touched
      expectExit(await runCli(['projections', 'verify', 'text', 'accounts', '--data-dir', dataDir]), 0);

      const rebuilt = expectExit(await runCli(['projections', 'rebuild', '--data-dir', dataDir]), 0);
      expect(rebuilt.stdout).toMatch(
        /^rebuilt graph, text, accounts, governance, ontology, briefs, audit, mcp, agents, knowledge_health, project_sources from [\d,]+ events in .*; swapped in at position \d+\nrebuilt vectors from [\d,]+ events in .*: 49 vectors in 1 organization; swapped in at position \d+\n$/,
      );
      expect(rebuilt.stderr).toMatch(/rebuilding graph, text, accounts, governance, ontology, briefs, audit, mcp, agents, knowledge_health, project_sources .*100%/);
      expect(rebuilt.stderr).toMatch(/rebuilding vectors .*100%/);
      expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0);
      expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('projections.') && f !== 'projections.db' && f !== 'projections.db.session' && !f.startsWith('projections.db-'))).toEqual([]);
      expect(fs.readdirSync(dataDir).filter((f) => f.startsWith('vectors.'))).toEqual([]);

      // the service starts on the rebuilt projections and serves them
      await reopenService(dataDir, async (t2) => expect((await (await tenant(t2.url)).c.get('/nodes?limit=1')).status).toBe(200));
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rebuilds one projection alone, keeping the others as they are', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c } = await tenant(t.url);
      await seedGraph(c, 30);
      await t.close({ keepData: true });
      // the organization's own full-text tables (one set per organization, named in text_orgs)
      const name = textTablesOf(dataDir);
      expect(tamperProjections(dataDir, `DELETE FROM text_docs_${name} WHERE id IN (SELECT id FROM text_docs_${name} LIMIT 5)`)).toBe(5);
      expect((await runCli(['projections', 'verify', 'text', '--data-dir', dataDir])).code).toBe(1);
      const r = expectExit(await runCli(['projections', 'rebuild', 'text', '--data-dir', dataDir]), 0);
      expect(r.stdout).toMatch(/^rebuilt text from/);
      expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("reports an organization's full-text tables missing from the live projections", async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c } = await tenant(t.url);
      await seedGraph(c, 10);
      await t.close({ keepData: true });
      const name = textTablesOf(dataDir);
      tamperProjections(dataDir, `DELETE FROM text_orgs WHERE name = ?`, name);
      tamperProjections(dataDir, `DROP TABLE text_vocab_${name}`);
      tamperProjections(dataDir, `DROP TABLE text_fts_${name}`);
      tamperProjections(dataDir, `DROP TABLE text_docs_${name}`);
      const bad = await runCli(['projections', 'verify', 'text', '--data-dir', dataDir]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain(`text_docs_${name}: missing from the live projections`);
      expect(bad.stdout).toContain(`text_fts_${name}: missing from the live projections`);
      expect(bad.stdout).toMatch(/text_orgs \(.*\): in rebuilt, missing from live/);
      expectExit(await runCli(['projections', 'rebuild', 'text', '--data-dir', dataDir]), 0);
      expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0);
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses unknown projection names and missing data dirs with one line and a non-zero exit', async () => {
    const t = await startService();
    try {
      const r = await runCli(['projections', 'rebuild', 'grpah', '--data-dir', t.dataDir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toBe("strata: unknown projection 'grpah'; projections: graph, text, accounts, governance, ontology, briefs, audit, mcp, agents, knowledge_health, project_sources, vectors\n");
      const v = await runCli(['projections', 'verify', 'vector', '--data-dir', t.dataDir]);
      expect(v.code).toBe(1);
      expect(v.stderr).toBe("strata: unknown projection 'vector'; projections: graph, text, accounts, governance, ontology, briefs, audit, mcp, agents, knowledge_health, project_sources, vectors\n");
      const missing = await runCli(['projections', 'verify', '--data-dir', path.join(t.dataDir, 'nope')]);
      expect(missing.code).toBe(1);
      expect(missing.stderr.trim().split('\n')).toHaveLength(1);
      expect(missing.stderr).toMatch(/^strata: no event log at .*nope\/events\.db/);
    } finally {
      await t.close();
    }
  });
});

describe('the full-text index after edits and a purge', () => {
  it('verifies identical to a rebuild of the log, which changes no score (audit J1, J2)', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c, key } = await tenant(t.url);
      const node = async (w: typeof c, label: string) => {
        // one summary for all (a derived one would keep a patched node's first label)
        const r = await w.post('/node', { label, summary: 'a concept', node_type: 'Concept' });
        expect(r.status).toBe(201);
        return r.body.uid as string;
      };
      const alpha = await node(c, 'alpha node text with many words in its label');
      await node(c, 'beta node');
      await node(c, 'gamma node');
      const delta = await node(c, 'delta draft');
      // superseded texts and a purged node: none of them may count in BM25's statistics
      for (let i = 0; i < 20; i++) expect((await c.patch(`/node/${delta}`, { label: `delta draft ${i} node node` })).status).toBe(200);
      expect((await c.patch(`/node/${delta}`, { label: 'delta node' })).status).toBe(200);
      expect((await c.delete(`/node/${alpha}`)).status).toBe(200);
      expect((await c.post('/purge', {})).body).toMatchObject({ nodes_purged: 1 });

      const scores = async (w: typeof c) => {
        const r = await w.post('/search', { query: 'beta node' });
        expect(r.status).toBe(200);
        // by label: equal scores are ordered by uid, which differ between organizations
        return (r.body as { label: string; score: number }[]).map((h) => [h.label, h.score]).sort();
      };
      const before = await scores(c);
      expect(before.map(([label]) => label)).toEqual(['beta node', 'delta node', 'gamma node']);
      // an organization written once with the same three nodes ranks the same
      const other = await tenant(t.url);
      for (const label of ['beta node', 'gamma node', 'delta node']) await node(other.c, label);
      expect(await scores(other.c)).toEqual(before);
      await t.close({ keepData: true });

      expect(expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0).stdout).toMatch(/identical to a fresh rebuild/);
      expectExit(await runCli(['projections', 'rebuild', 'text', '--data-dir', dataDir]), 0);
      await reopenService(dataDir, async (t2) => expect(await scores(api(t2.url, key))).toEqual(before));
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('the full-text postings (STRATA_TEXT_POSTINGS=true)', () => {
  it('verify with them identical to a fresh rebuild, and a rebuild builds them: the CLI follows the setting', async () => {
    const t = await startService({ textPostings: true });
    const dataDir = t.dataDir;
    const cli = { env: { STRATA_TEXT_POSTINGS: 'true' } };
    try {
      const { c, key } = await tenant(t.url);
      const words = ['river', 'stone', 'cloud', 'ember', 'harbor'];
      const nodes = Array.from({ length: 60 }, (_, i) => ({ node_type: 'Concept', label: `entity ${i} ${words[i % 5]}`, summary: `about ${words[(i * 3) % 5]} number ${i % 7}` }));
      expect((await c.post('/batch', { nodes })).status).toBe(201);
      const uid = ((await c.post('/search', { query: 'entity 7' })).body as { uid: string }[])[0].uid;
      expect((await c.patch(`/node/${uid}`, { label: 'entity seven harbor' })).status).toBe(200);
      const page = async (w: typeof c) => {
        const r = await w.post('/search', { query: 'entity harbor number', limit: 50 });
        expect(r.status).toBe(200);
        return (r.body as { label: string; score: number }[]).map((h) => [h.label, h.score]);
      };
      const before = await page(c);
      expect(before.length).toBeGreaterThan(20);
      await t.close({ keepData: true });
      const name = textTablesOf(dataDir);
      const postings = () => {
        const db = new Database(path.join(dataDir, 'projections.db'), { readonly: true });
        try {
          return db.prepare(`SELECT count(*) FROM text_fts_${name}_post`).pluck().get() as number;
        } finally {
          db.close();
        }
      };
      expect(postings()).toBeGreaterThan(0);

      expect(expectExit(await runCli(['projections', 'verify', 'text', '--data-dir', dataDir], cli), 0).stdout).toMatch(/identical to a fresh rebuild/);
      expectExit(await runCli(['projections', 'rebuild', 'text', '--data-dir', dataDir], cli), 0);
      expect(postings()).toBeGreaterThan(0);
      expect(expectExit(await runCli(['projections', 'verify', 'text', '--data-dir', dataDir], cli), 0).stdout).toMatch(/identical to a fresh rebuild/);
      await reopenService(dataDir, async (t2) => expect(await page(api(t2.url, key))).toEqual(before), { textPostings: true });
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe('strata projections rebuild while the service takes writes', () => {
  it('keeps answering reads, loses no acknowledged write, and ends equal to a fresh rebuild', async () => {
    const t = await startService({ captureLogs: true });
    try {
      const { c } = await tenant(t.url);
      const seeded = await seedGraph(c, 6000);
      // a damaged live row: only a real swap into the running service repairs what it serves
      tamperProjections(t.dataDir, "UPDATE nodes SET doc = json_set(doc, '$.label', 'tampered') WHERE uid = ?", seeded.nodes[1]);
      expect((await c.get(`/node/${seeded.nodes[1]}`)).body.label).toBe('tampered');
      const acked: string[] = [];
      const failures: string[] = [];
      let reads = 0;
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop; i++) {
          const r = await c.post('/node', { label: `written during rebuild ${i}`, node_type: 'Claim', props: { content: `claim ${i}` } });
          if (r.status === 201) acked.push(r.body.uid);
          else failures.push(`write ${r.status} ${r.text}`);
        }
      })();
      const reader = (async () => {
        for (let i = 0; !stop; i++) {
          const r = await c.get(`/node/${seeded.nodes[i % seeded.nodes.length]}`);
          reads++;
          if (r.status !== 200) failures.push(`read ${r.status} ${r.text}`);
        }
      })();
      const before = acked.length;
      const rebuild = await runCli(['projections', 'rebuild', '--data-dir', t.dataDir], { timeoutMs: 180_000 });
      const during = acked.length - before;
      // writes go on after the swap
      await eventually(() => acked.length >= before + during + 10 || failures.length > 0, { what: 'writes after the swap', timeoutMs: 15_000 });
      stop = true;
      await Promise.all([writer, reader]);

      expectExit(rebuild, 0);
      expect(rebuild.stdout).toMatch(new RegExp(`swapped in by the running service \\(pid ${process.pid}\\) at position \\d+`));
      expect(failures).toEqual([]);
      expect(during).toBeGreaterThan(10);
      expect(reads).toBeGreaterThan(10);
      expect(t.logs.some((l) => l.includes('taking over rebuilt projections'))).toBe(true);
      expect((await c.get(`/node/${seeded.nodes[1]}`)).body.label).toBe('seed goal 1');

      // every acknowledged write is there, written before, during or after the swap
      for (let i = 0; i < acked.length; i += 1000) {
        const r = await c.post('/nodes/batch', { uids: acked.slice(i, i + 1000) });
        expect(r.body.missing).toEqual([]);
      }
      const status = await statusOf(t.dataDir);
      for (const r of status.filter((x: any) => x.name !== 'vectors')) expect(r.lag).toBe(0);
      const verify = await runCli(['projections', 'verify', '--data-dir', t.dataDir], { timeoutMs: 180_000 });
      expect(verify.stdout).toMatch(/identical to a fresh rebuild/);
      expectExit(verify, 0);
      expect(fs.existsSync(path.join(t.dataDir, 'projections.next.db'))).toBe(false);
    } finally {
      await t.close();
    }
  }, 300_000);
});

describe('a projection version bump', () => {
  it('is rebuilt beside at start-up while the service answers from the previous version, then swapped in', async () => {
    const t = await startService();
    const dataDir = t.dataDir;
    try {
      const { c, key } = await tenant(t.url);
      const { nodes } = await seedGraph(c, 3000);
      await t.close({ keepData: true });
      // as if the text projection's code had moved to a new version: the stored one is older
      tamperProjections(dataDir, "UPDATE checkpoints SET version = version - 1 WHERE name = 'text'");
      const status = await statusOf(dataDir);
      expect(status.find((r: any) => r.name === 'text').note).toMatch(/built by version \d+: the service rebuilds it at start-up/);

      const t2 = await startService({ dataDir, captureLogs: true });
      try {
        const api2 = api(t2.url, key);
        // answering at once, not 503
        expect((await api2.get(`/node/${nodes[0]}`)).status).toBe(200);
        await eventually(() => t2.logs.some((l) => /rebuilt text from the log and swapped them in/.test(l)), { what: 'the rebuild beside to be swapped in', timeoutMs: 10_000 }).catch(() => undefined);
        expect(t2.logs.join('\n')).toMatch(/projections text changed version: serving them while a copy is rebuilt beside/);
        expect(t2.logs.join('\n')).toMatch(/rebuilt text from the log and swapped them in at position \d+/);
        const after = await statusOf(dataDir);
        const text = after.find((r: any) => r.name === 'text');
        expect(text.stored_version).toBe(text.version);
        expect(text.note).toBeNull();
        expect((await api2.post('/search', { query: 'seed goal 42' })).status).toBe(200);
        expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0);
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
