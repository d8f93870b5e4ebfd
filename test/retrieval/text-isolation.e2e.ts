import * as fs from 'node:fs';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { TEXT_ORG_TABLE_RE } from '@strata/text-index/sqlite/sqlite-text-index';
import { api } from '../support/http';
import { startTestApp } from '../support/test-app';
import { mk, newOrg, startRetrieval, until, RetrievalFixture } from './retrieval-fixture';

type Hit = { node: { uid: string }; score: number };
const scores = (hits: Hit[]) => Object.fromEntries(hits.map((h) => [h.node.uid, h.score]));

/**
 * BM25 statistics (row count, document frequencies) are an organization's own: what another
 * organization stores never changes a score or an order, so scores leak nothing across tenants.
 */
describe('full-text scores depend only on the caller organization', () => {
  let f: RetrievalFixture;
  afterAll(() => f?.close());

  it("another organization's rows change neither scores nor order of text, /search and hybrid", async () => {
    f = await startRetrieval();
    const other = await newOrg(f.app);
    // a few unrelated rows, so that the two words are rare and their IDF well above FTS5's floor
    for (let i = 0; i < 4; i++) await mk(f.w, 'Idea', `ledger entry ${i}`);
    const quokka = await mk(f.w, 'Idea', 'quokka');
    const zebra = await mk(f.w, 'Idea', 'zebra');
    const text = async () => (await f.w.post('/retrieve', { action: 'text', query: 'quokka zebra' })).body as Hit[];
    const search = async () => (await f.w.post('/search', { query: 'quokka zebra' })).body as { uid: string; score: number }[];
    const hybrid = async () => (await f.w.post('/retrieve', { action: 'hybrid', query: 'quokka zebra', explain: true })).body;

    const before = await text();
    // alone in its organization, each one-word node matches one query word: equal scores
    expect(before).toHaveLength(2);
    expect(before[0].score).toBeGreaterThan(0.1);
    expect(before[0].score).toBe(before[1].score);
    const searchBefore = await search();
    const hybridBefore = await hybrid();

    // the other organization makes "quokka" common there (and adds rows, changing its N)
    for (let i = 0; i < 4; i++) await mk(other.w, 'Idea', 'quokka');
    for (let i = 0; i < 6; i++) await mk(other.w, 'Idea', `filler note ${i}`);

    const after = await text();
    expect(scores(after)).toEqual(scores(before));
    expect(after.map((h) => h.node.uid)).toEqual(before.map((h) => h.node.uid));
    expect(scores(after)[quokka]).toBe(scores(after)[zebra]);
    expect(await search()).toEqual(searchBefore);
    expect((await hybrid()).map((r: any) => [r.node.uid, r.legs.find((l: any) => l.leg === 'fts')])).toEqual(
      hybridBefore.map((r: any) => [r.node.uid, r.legs.find((l: any) => l.leg === 'fts')]),
    );
    // and the other organization sees only its own rows, scored on its own statistics
    const theirs = (await other.w.post('/retrieve', { action: 'text', query: 'quokka zebra' })).body as Hit[];
    expect(theirs).toHaveLength(4);
    expect(theirs.map((h) => h.node.uid)).not.toContain(quokka);
  });
});

describe('a projections database with the version-1 shared full-text table', () => {
  it('keeps answering searches, rebuilds the index per organization in the background and drops the shared table', async () => {
    const first = await startTestApp();
    const dataDir = first.dataDir;
    let second: Awaited<ReturnType<typeof startTestApp>> | undefined;
    try {
      const a = await newOrg(first);
      const b = await newOrg(first);
      const aNodes = [await mk(a.w, 'Idea', 'walrus colony'), await mk(a.w, 'Idea', 'walrus')];
      const bNodes = [await mk(b.w, 'Idea', 'walrus'), await mk(b.w, 'Idea', 'walrus'), await mk(b.w, 'Idea', 'walrus')];
      const expected = (await a.w.post('/retrieve', { action: 'text', query: 'walrus colony' })).body as Hit[];
      expect(expected.map((h) => h.node.uid).sort()).toEqual([...aNodes].sort());
      await first.close({ keepData: true });

      // what text projection version 1 left: one FTS5 table for every organization
      const db = new Database(path.join(dataDir, 'projections.db'));
      try {
        const perOrg = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]).filter((t) => TEXT_ORG_TABLE_RE.test(t));
        expect(perOrg).toHaveLength(6);
        db.exec(`
          ${perOrg.filter((t) => t.startsWith('text_vocab_')).map((t) => `DROP TABLE ${t};`).join('\n')}
          ${perOrg.filter((t) => !t.startsWith('text_vocab_')).map((t) => `DROP TABLE ${t};`).join('\n')}
          DROP TABLE text_orgs;
          CREATE TABLE text_docs (id INTEGER PRIMARY KEY, org TEXT NOT NULL, uid TEXT NOT NULL, node_type TEXT NOT NULL, layer TEXT NOT NULL, UNIQUE (org, uid));
          CREATE VIRTUAL TABLE text_fts USING fts5(label, summary, body, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
          CREATE VIRTUAL TABLE text_fts_vocab USING fts5vocab(text_fts, 'row');
          INSERT INTO text_docs (org, uid, node_type, layer) SELECT org, uid, node_type, layer FROM nodes WHERE tombstone_at IS NULL ORDER BY created_at, uid;
          INSERT INTO text_fts (rowid, label, summary, body)
            SELECT d.id, json_extract(n.doc, '$.label'), coalesce(json_extract(n.doc, '$.summary'), ''), '' FROM text_docs d JOIN nodes n ON n.org = d.org AND n.uid = d.uid;
          UPDATE checkpoints SET version = 1 WHERE name = 'text';
        `);
      } finally {
        db.close();
      }

      second = await startTestApp({ dataDir });
      const a2 = api(second.url, a.key);
      // served from the shared table until the rebuilt copy is swapped in, then per organization
      expect(((await a2.post('/retrieve', { action: 'text', query: 'walrus colony' })).body as Hit[]).map((h) => h.node.uid).sort()).toEqual([...aNodes].sort());
      const file = path.join(dataDir, 'projections.db');
      await until(
        'the text index rebuilt per organization',
        async () => {
          const check = new Database(file, { readonly: true });
          try {
            const shared = check.prepare("SELECT count(*) FROM sqlite_master WHERE name IN ('text_docs', 'text_fts')").pluck().get() as number;
            return shared === 0 && check.prepare('SELECT count(*) FROM text_orgs').pluck().get() === 2;
          } finally {
            check.close();
          }
        },
        30_000,
      );
      const rebuilt = (await a2.post('/retrieve', { action: 'text', query: 'walrus colony' })).body as Hit[];
      expect(rebuilt).toEqual(expected);
      const b2 = api(second.url, b.key);
      expect(((await b2.post('/search', { query: 'walrus' })).body as { uid: string }[]).map((r) => r.uid).sort()).toEqual([...bNodes].sort());
    } finally {
      if (second) await second.close();
      await first.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
