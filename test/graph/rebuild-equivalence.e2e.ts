import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { Api, api, signUpWithKey } from '../support/http';
import { startTestApp } from '../support/test-app';
import { TickingClock } from '../support/ticking-clock';

/**
 * DESIGN rule 1: every read model is derived from the log. Random operation sequences
 * through HTTP, then the projections database is deleted and rebuilt from the log on
 * restart: every read-model row must come back identical.
 */

/** Small deterministic PRNG (mulberry32), so a failing sequence can be replayed from its seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: T[]): T | undefined => (xs.length ? xs[Math.floor(next() * xs.length)] : undefined),
    chance: (p: number) => next() < p,
  };
}

const PROJECTIONS = 'projections.db';
/**
 * FTS5 tables (one per organization) and their shadow tables hold segment layouts that depend
 * on write history; their vocabularies (text_vocab_*) are compared instead.
 */
const FTS_SHADOW = /^text_fts_/;

/** Every read-model table as sorted rows, in one string; FTS5 by its vocabulary. */
function canonicalDump(dataDir: string): { tables: string[]; dump: string } {
  const db = new Database(path.join(dataDir, PROJECTIONS), { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[]).filter(
      (t) => !FTS_SHADOW.test(t),
    );
    const out: Record<string, unknown[]> = {};
    for (const t of tables) {
      // text_docs_*.id is a rowid handed out in insertion order, not data
      const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[]).filter((c) => !(t.startsWith('text_docs_') && c === 'id'));
      const list = cols.map((c) => `"${c}"`).join(', ');
      out[t] = db.prepare(`SELECT ${list} FROM "${t}" ORDER BY ${list}`).raw().all();
    }
    const dump = JSON.stringify(out, (_k, v) => (Buffer.isBuffer(v) ? v.toString('base64') : v));
    return { tables, dump };
  } finally {
    db.close();
  }
}

interface OrgState {
  key: string;
  c: Api;
  nodes: string[];
  edges: string[];
  series: string[];
}

const NODE_TYPES: [string, Record<string, unknown>][] = [
  ['Claim', { content: 'c' }],
  ['Goal', {}],
  ['Idea', {}],
  ['Person', { full_name: 'p' }],
  ['Evidence', { description: 'e' }],
  ['research_topic', { free: 1 }],
];
const EDGE_TYPES = ['Supports', 'RelatedTo', 'DependsOn', 'Refutes', 'Mentions'];

/** One random operation; every answer must be a deliberate one (never a 5xx). */
async function randomOp(r: ReturnType<typeof rng>, o: OrgState, i: number, log: string[], clock: TickingClock): Promise<void> {
  const c = o.c;
  // time passes as the seed says, so decay and purge-by-age do the same on every run
  clock.advance(r.next() * 0.2);
  const n = () => r.pick(o.nodes) ?? 'missing-node';
  const e = () => r.pick(o.edges) ?? 'missing-edge';
  const roll = r.int(100);
  let op: string;
  let res: { status: number; body: any; text: string };
  if (roll < 22 || o.nodes.length < 3) {
    const [type, props] = NODE_TYPES[r.int(NODE_TYPES.length)];
    op = 'create node';
    res = await c.post('/node', { label: `node ${i} ${r.int(1000)}`, node_type: type, props, salience: Math.round(r.next() * 100) / 100, layer: 'intent' });
    if (res.status === 201) o.nodes.push(res.body.uid);
  } else if (roll < 27) {
    op = 'batch';
    res = await c.post('/batch', {
      nodes: [
        { ref: 'a', label: `batch a ${i}`, node_type: 'Goal' },
        { ref: 'b', label: `batch b ${i}`, node_type: 'Task' },
      ],
      edges: [{ from_ref: 'b', to_ref: 'a', edge_type: 'Targets' }],
    });
    if (res.status === 201) {
      o.nodes.push(...res.body.node_uids);
      o.edges.push(...res.body.edge_uids);
    }
  } else if (roll < 37) {
    op = 'update node';
    res = await c.patch(`/node/${n()}`, { label: `renamed ${i}`, salience: Math.round(r.next() * 100) / 100 });
  } else if (roll < 43) {
    op = 'tombstone node';
    res = await c.delete(`/node/${n()}`);
  } else if (roll < 48) {
    op = 'restore node';
    res = await c.post('/evolve', { action: 'restore', uid: n() });
  } else if (roll < 60) {
    op = 'create edge';
    res = await c.post('/edge', { from_uid: n(), to_uid: n(), edge_type: r.pick(EDGE_TYPES), weight: Math.round(r.next() * 100) / 100 });
    if (res.status === 201) o.edges.push(res.body.uid);
  } else if (roll < 64) {
    op = 'update edge';
    res = await c.patch(`/edge/${e()}`, { weight: Math.round(r.next() * 100) / 100 });
  } else if (roll < 68) {
    op = 'tombstone edge';
    res = await c.delete(`/edge/${e()}`);
  } else if (roll < 71) {
    op = 'restore edge';
    res = await c.post('/evolve', { action: 'restore_edge', uid: e() });
  } else if (roll < 77) {
    op = 'alias';
    res = await c.post('/alias', { text: `alias ${r.int(20)}`, canonical_uid: n(), score: Math.round(r.next() * 100) / 100 });
  } else if (roll < 81) {
    op = 'decay';
    const auto = r.chance(0.4) ? { min_salience: 0.2, min_age_secs: 0 } : {};
    res = await c.post('/decay', { half_life_secs: 0.5 + r.next() * 5, ...auto });
  } else if (roll < 84) {
    op = 'purge';
    res = await c.post('/purge', r.chance(0.5) ? {} : { older_than_secs: r.next() });
  } else if (roll < 88) {
    op = 'series';
    const s = r.pick(o.series);
    if (!s || r.chance(0.3)) {
      res = await c.post('/reality/series', { action: 'create', label: `metric ${i}`, points: [{ ts: i, value: r.next() }] });
      if (res.status === 201) o.series.push(res.body.uid);
    } else res = await c.post('/reality/series', { action: 'append', series_uid: s, points: [{ ts: i, value: r.next() }, { ts: i + 0.5, value: 1 }] });
  } else if (roll < 92) {
    op = 'embedding';
    res = await c.put(`/node/${n()}/embedding`, { vector: [r.next(), r.next(), r.next(), r.next()] });
  } else if (roll < 95) {
    op = 'merge';
    res = await c.post('/entities/merge', { keep_uid: n(), merge_uid: n() });
  } else if (roll < 98) {
    op = 'evolve update';
    res = await c.post('/evolve', { action: 'update', uid: n(), summary: `summary ${i}` });
  } else {
    op = 'delete many';
    res = await c.post('/nodes/delete', { uids: [n(), n()], hard_purge: r.chance(0.3) });
  }
  log.push(`${i} ${op} → ${res.status}`);
  if (res.status >= 500) throw new Error(`${op} answered ${res.status}: ${res.text}\n${log.slice(-20).join('\n')}`);
}

describe('rebuild equivalence', () => {
  it.each([[1], [2], [3]])('seed %i: random operations, then a rebuild from the log gives identical read models', async (seed) => {
    const clock = new TickingClock();
    const t = await startTestApp({ clock });
    const dataDir = t.dataDir;
    try {
      const r = rng(seed);
      const log: string[] = [];
      const orgs: OrgState[] = [];
      for (let k = 0; k < 2; k++) {
        const s = await signUpWithKey(t.url);
        const c = api(t.url, s.key);
        expect((await c.post('/embeddings/configure', { provider: 'builtin', dimensions: 4 })).status).toBe(200);
        orgs.push({ key: s.key, c, nodes: [], edges: [], series: [] });
      }
      for (let i = 0; i < 250; i++) {
        await randomOp(r, orgs[r.int(2)], i, log, clock);
        if (i === 120) {
          // a snapshot of one organization imported into the other, then the first one cleared
          const snap = (await orgs[0].c.get('/export?include_tombstoned=true')).body;
          const imp = await orgs[1].c.post('/import', snap);
          expect([imp.status, imp.text]).toEqual([200, imp.text]);
          orgs[1].nodes.push(...snap.nodes.map((x: any) => x.uid));
          orgs[1].edges.push(...snap.edges.map((x: any) => x.uid));
          expect((await orgs[0].c.post('/clear', {})).status).toBe(200);
        }
      }
      const views = async (url: string) =>
        JSON.stringify(
          await Promise.all(
            orgs.map(async (o) => {
              const c = api(url, o.key);
              const snap = (await c.get('/export?include_tombstoned=true')).body;
              const stats = (await c.get('/stats')).body;
              return { snap: { ...snap, exported_at: 0 }, stats: { ...stats, generated_at: 0, embedding_index_backlog: 0 } };
            }),
          ),
        );
      const viewsBefore = await views(t.url);
      await t.close({ keepData: true });
      const before = canonicalDump(dataDir);
      expect(before.tables).toEqual(expect.arrayContaining(['nodes', 'edges', 'aliases', 'embeddings', 'embedding_config', 'series_points', 'text_orgs', 'checkpoints']));
      expect(before.tables.filter((t) => /^text_(docs|vocab)_[0-9a-f]{16}$/.test(t)).length).toBeGreaterThanOrEqual(2);
      const rows = JSON.parse(before.dump);
      expect(rows.nodes.length).toBeGreaterThan(20);
      expect(rows.edges.length).toBeGreaterThan(5);

      for (const f of [PROJECTIONS, `${PROJECTIONS}-wal`, `${PROJECTIONS}-shm`]) fs.rmSync(path.join(dataDir, f), { force: true });
      const t2 = await startTestApp({ dataDir, clock });
      try {
        const after = canonicalDump(dataDir); // as rebuilt, before any new request
        expect(after.tables).toEqual(before.tables);
        if (after.dump !== before.dump) {
          const b = JSON.parse(after.dump);
          for (const table of Object.keys(rows)) expect([table, b[table]]).toEqual([table, rows[table]]);
        }
        expect(after.dump).toBe(before.dump);
        expect(await views(t2.url)).toBe(viewsBefore);
      } finally {
        await t2.close({ keepData: true });
      }
    } finally {
      await t.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
