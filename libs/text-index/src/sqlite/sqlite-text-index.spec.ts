import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TextDocument } from '../text-index.port';
import { describeTextIndexConformance } from '../testing/text-index.conformance';
import { expectExactTieOrder, seededRandom } from '../testing/tie-order';
import { decodeFts5Averages } from './fts5-averages';
import { MAX_QUERY_TERMS } from '../analysis/text-analysis';
import { SqliteTextIndex } from './sqlite-text-index';

const note = (org: string, uid: string, label: string, fields: Partial<TextDocument> = {}): TextDocument => ({
  org,
  uid,
  node_type: 'Note',
  layer: 'reality',
  label,
  summary: '',
  body: '',
  ...fields,
});

/** The text index's tables in the database (catalogue excepted), sorted. */
const textTables = (db: Database.Database) =>
  db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'text\\_%' ESCAPE '\\' AND name <> 'text_orgs' ORDER BY name").pluck().all() as string[];

describeTextIndexConformance('SqliteTextIndex', () => new SqliteTextIndex(new Database(':memory:')));
// the postings path on every query it can answer (no row threshold): the same order, ties and pages
describeTextIndexConformance('SqliteTextIndex with postings', () => new SqliteTextIndex(new Database(':memory:'), { postings: true, postingsMinRows: 0 }));

describe('SqliteTextIndex specifics', () => {
  it('searches the first MAX_QUERY_TERMS distinct words of a query and ignores later ones', () => {
    const index = new SqliteTextIndex(new Database(':memory:'));
    const words = Array.from({ length: MAX_QUERY_TERMS }, (_, i) => `filler${i}`);
    index.upsertSync([note('o', 'last', `${words[MAX_QUERY_TERMS - 1]} note`), note('o', 'past', 'zebu herd')]);
    // a repeated word is one term: the bound counts distinct words
    const query = [...words, words[0], 'zebu'].join(' ');
    expect(index.searchSync({ org: 'o', query, limit: 10 }).map((h) => h.uid)).toEqual(['last']);
    expect(index.searchSync({ org: 'o', query: words.slice(1).concat('zebu').join(' '), limit: 10 }).map((h) => h.uid).sort()).toEqual(['last', 'past']);
  });

  it('shares the caller transaction: a rollback undoes the index write', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const doc = { org: 'o', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'walrus', summary: '', body: '' };
    const failing = db.transaction(() => {
      index.upsertSync([doc]);
      throw new Error('projection failed');
    });
    expect(() => failing()).toThrow('projection failed');
    expect(index.searchSync({ org: 'o', query: 'walrus', limit: 5 })).toEqual([]);
    db.transaction(() => index.upsertSync([doc]))();
    expect(index.searchSync({ org: 'o', query: 'walrus', limit: 5 }).map((h) => h.uid)).toEqual(['u1']);
  });

  it('clears every organization for a rebuild', () => {
    const index = new SqliteTextIndex(new Database(':memory:'));
    index.upsertSync([
      { org: 'a', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'otter', summary: '', body: '' },
      { org: 'b', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'otter', summary: '', body: '' },
    ]);
    index.clearSync();
    expect(index.countSync('a') + index.countSync('b')).toBe(0);
    expect(textTables((index as unknown as { db: Database.Database }).db)).toEqual([]);
    expect(index.searchSync({ org: 'a', query: 'otter', limit: 5 })).toEqual([]);
    index.upsertSync([{ org: 'a', uid: 'u2', node_type: 'Note', layer: 'reality', label: 'otter', summary: '', body: '' }]);
    expect(index.searchSync({ org: 'a', query: 'otter', limit: 5 }).map((h) => h.uid)).toEqual(['u2']);
  });

  it('reopens its tables on an existing database without losing rows', () => {
    const db = new Database(':memory:');
    new SqliteTextIndex(db).upsertSync([
      { org: 'o', uid: 'u1', node_type: 'Note', layer: 'reality', label: 'narwhal', summary: '', body: '' },
    ]);
    const again = new SqliteTextIndex(db);
    expect(again.countSync('o')).toBe(1);
    expect(again.searchSync({ org: 'o', query: 'narwhal', limit: 5 }).map((h) => h.uid)).toEqual(['u1']);
  });

  it('gives tables made before the node-type index that index when opened, not at their first write', () => {
    const db = new Database(':memory:');
    new SqliteTextIndex(db).upsertSync([note('o', 'u1', 'narwhal'), note('o', 'u2', 'walrus', { node_type: 'Article' })]);
    const typeIndexes = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%\\_by\\_type' ESCAPE '\\'").pluck().all() as string[];
    const [made] = typeIndexes();
    expect(made).toMatch(/^text_docs_[0-9a-f]{16}_by_type$/);
    db.exec(`DROP INDEX ${made}`); // as an older version left it
    const again = new SqliteTextIndex(db);
    // no write through the new handle yet: the first write after an upgrade does not build it
    expect(typeIndexes()).toEqual([made]);
    expect(again.searchSync({ org: 'o', query: 'walrus narwhal', node_types: ['Article'], limit: 5 })).toEqual([{ uid: 'u2', score: expect.any(Number), salience: 0.5 }]);
  });

  it('hands each hit the salience its order used, on every ranking path', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { commonTermRows: 2, essentialDfBudget: 1 });
    const docs = Array.from({ length: 12 }, (_, i) => note('o', `u${String(i).padStart(2, '0')}`, i < 3 ? 'heron river' : 'river', { salience: (i % 4) / 4 }));
    index.upsertSync(docs);
    const salienceOf = new Map(docs.map((d) => [d.uid, d.salience]));
    // scored rows ("heron"), rows of common terms only (score 0), and a node-type filter
    for (const q of [{ query: 'heron' }, { query: 'heron river' }, { query: 'river' }, { query: 'river', node_types: ['Note'] }]) {
      const hits = index.searchSync({ org: 'o', limit: 20, ...q });
      expect(hits.length).toBeGreaterThan(0);
      for (const h of hits) expect(h.salience).toBe(salienceOf.get(h.uid));
    }
    index.setSalienceSync('o', [{ uid: 'u00', salience: 0.9 }]);
    expect(index.searchSync({ org: 'o', query: 'heron', limit: 1 })).toEqual([{ uid: 'u00', score: expect.any(Number), salience: 0.9 }]);
  });

  it("scores with the caller's organization's statistics only (another organization's rows change nothing)", () => {
    const own = [note('b', 'quokka', 'quokka'), note('b', 'zebra', 'zebra')];
    const alone = new SqliteTextIndex(new Database(':memory:'));
    alone.upsertSync(own);
    const expected = alone.searchSync({ org: 'b', query: 'quokka zebra', limit: 10 });
    // alone, two one-word rows with one match each score the same
    expect(expected[0].score).toBeCloseTo(expected[1].score, 12);

    const shared = new SqliteTextIndex(new Database(':memory:'));
    shared.upsertSync(own);
    shared.upsertSync(Array.from({ length: 4 }, (_, i) => note('a', `a${i}`, 'quokka')));
    shared.upsertSync(Array.from({ length: 40 }, (_, i) => note('a', `f${i}`, `filler ${i}`)));
    expect(shared.searchSync({ org: 'b', query: 'quokka zebra', limit: 10 })).toEqual(expected);
    // the planned (MaxScore) path too: its N and document frequencies are the organization's
    const many = Array.from({ length: 30 }, (_, i) => note('b', `m${i}`, `marmot ${i % 3 ? 'wombat' : ''}`));
    alone.upsertSync(many);
    shared.upsertSync(many);
    shared.upsertSync(Array.from({ length: 300 }, (_, i) => note('a', `w${i}`, 'wombat marmot')));
    for (const query of ['marmot wombat quokka', 'wombat zebra', 'marmot']) {
      for (const limit of [1, 3, 50]) expect(shared.searchSync({ org: 'b', query, limit })).toEqual(alone.searchSync({ org: 'b', query, limit }));
    }
  });

  it('keeps each organization in its own catalogued tables and drops them on removeOrg', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    index.upsertSync([note('a', 'u1', 'otter'), note('b', 'u1', 'otter')]);
    const names = db.prepare('SELECT org, name FROM text_orgs ORDER BY org').all() as { org: string; name: string }[];
    const hash = (org: string) => createHash('sha256').update(org).digest('hex').slice(0, 16);
    expect(names).toEqual([
      { org: 'a', name: hash('a') },
      { org: 'b', name: hash('b') },
    ]);
    expect(textTables(db).filter((t) => !/_(data|idx|content|docsize|config)$/.test(t))).toEqual(
      [`text_docs_${hash('a')}`, `text_docs_${hash('b')}`, `text_fts_${hash('a')}`, `text_fts_${hash('b')}`, `text_vocab_${hash('a')}`, `text_vocab_${hash('b')}`].sort(),
    );
    index.removeOrgSync('a');
    expect(textTables(db).some((t) => t.includes(hash('a')))).toBe(false);
    expect(db.prepare('SELECT org FROM text_orgs').pluck().all()).toEqual(['b']);
    expect(index.searchSync({ org: 'a', query: 'otter', limit: 5 })).toEqual([]);
    expect(index.countSync('a')).toBe(0);
    // written again, the organization gets the same tables back
    index.upsertSync([note('a', 'u2', 'otter')]);
    expect(index.searchSync({ org: 'a', query: 'otter', limit: 5 }).map((h) => h.uid)).toEqual(['u2']);
    expect(db.prepare("SELECT name FROM text_orgs WHERE org = 'a'").pluck().get()).toBe(hash('a'));
  });

  it("keeps BM25's statistics exact: after updates and removals they are a fresh index's with the same documents", () => {
    const averages = (db: Database.Database, org: string) => {
      const name = db.prepare('SELECT name FROM text_orgs WHERE org = ?').pluck().get(org) as string;
      return decodeFts5Averages(db.prepare(`SELECT block FROM text_fts_${name}_data WHERE id = 1`).pluck().get() as Buffer, 3);
    };
    const present = [note('o', 'a', 'kiwi kiwi alpha beta', { summary: 'gamma' }), note('o', 'b', 'kiwi'), note('o', 'c', 'filler', { body: 'delta epsilon' })];
    const freshDb = new Database(':memory:');
    new SqliteTextIndex(freshDb).upsertSync(present);
    expect(averages(freshDb, 'o')).toEqual({ rows: 3, tokens: [6, 1, 2] });

    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    index.upsertSync([...present, note('o', 'gone', 'kiwi purged later', { body: 'many words in this body' })]);
    for (let i = 0; i < 31; i++) index.upsertSync([note('o', 'c', `filler draft ${i}`, { summary: 'x '.repeat(i) })]);
    index.upsertSync([present[2], note('o', 'b', 'kiwi', { node_type: 'Goal' })]);
    index.removeSync('o', ['gone']);
    expect(averages(db, 'o')).toEqual(averages(freshDb, 'o'));
    const fresh = new SqliteTextIndex(freshDb);
    fresh.upsertSync([note('o', 'b', 'kiwi', { node_type: 'Goal' })]);
    expect(index.searchSync({ org: 'o', query: 'kiwi filler delta', limit: 10 })).toEqual(fresh.searchSync({ org: 'o', query: 'kiwi filler delta', limit: 10 }));
  });

  it('leaves the index alone when an update keeps the text, and still follows node_type and layer', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    index.upsertSync([note('o', 'u1', 'lynx'), note('o', 'u2', 'lynx den')]);
    const name = db.prepare('SELECT name FROM text_orgs').pluck().get() as string;
    const segments = () => db.prepare(`SELECT count(*) FROM text_fts_${name}_data`).pluck().get();
    const before = segments();
    index.upsertSync([note('o', 'u1', 'lynx', { node_type: 'Goal', layer: 'intent' })]);
    expect(segments()).toBe(before);
    expect(index.searchSync({ org: 'o', query: 'lynx', limit: 5, node_types: ['Goal'], layer: 'intent' }).map((h) => h.uid)).toEqual(['u1']);
  });

  it('writes version-2 tables (contentless_delete, no text kept) with the same statements until the rebuild replaces them', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const name = createHash('sha256').update('o').digest('hex').slice(0, 16);
    // what text projection version 2 created for an organization
    db.exec(`
      INSERT INTO text_orgs (org, name) VALUES ('o', '${name}');
      CREATE TABLE text_docs_${name} (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, node_type TEXT NOT NULL, layer TEXT NOT NULL);
      CREATE VIRTUAL TABLE text_fts_${name} USING fts5(label, summary, body, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
      CREATE VIRTUAL TABLE text_vocab_${name} USING fts5vocab(text_fts_${name}, 'row');
      INSERT INTO text_docs_${name} VALUES (1, 'old', 'Note', 'reality');
      INSERT INTO text_fts_${name} (rowid, label, summary, body) VALUES (1, 'puffin colony', '', '');
    `);
    index.upsertSync([note('o', 'new', 'puffin'), note('o', 'old', 'puffin burrow')]);
    index.upsertSync([note('o', 'old', 'puffin burrow')]);
    expect(index.searchSync({ org: 'o', query: 'colony', limit: 5 })).toEqual([]);
    expect(index.searchSync({ org: 'o', query: 'burrow', limit: 5 }).map((h) => h.uid)).toEqual(['old']);
    index.removeSync('o', ['new']);
    expect(index.searchSync({ org: 'o', query: 'puffin', limit: 5 }).map((h) => h.uid)).toEqual(['old']);
    expect(index.countSync('o')).toBe(1);
  });

  it('takes another name when the hashed one is taken', () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    const taken = createHash('sha256').update('o').digest('hex').slice(0, 16);
    db.prepare('INSERT INTO text_orgs (org, name) VALUES (?, ?)').run('squatter', taken);
    index.upsertSync([note('o', 'u1', 'heron')]);
    expect(db.prepare("SELECT name FROM text_orgs WHERE org = 'o'").pluck().get()).toBe(`${taken}_2`);
    expect(index.searchSync({ org: 'o', query: 'heron', limit: 5 }).map((h) => h.uid)).toEqual(['u1']);
  });

  it("rolls the organization's new tables back with the caller's transaction", () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    expect(() =>
      db.transaction(() => {
        index.upsertSync([note('o', 'u1', 'ibis')]);
        throw new Error('projection failed');
      })(),
    ).toThrow('projection failed');
    expect(textTables(db)).toEqual([]);
    expect(index.searchSync({ org: 'o', query: 'ibis', limit: 5 })).toEqual([]);
    expect(index.countSync('o')).toBe(0);
    index.upsertSync([note('o', 'u1', 'ibis')]);
    expect(index.searchSync({ org: 'o', query: 'ibis', limit: 5 }).map((h) => h.uid)).toEqual(['u1']);
  });

  it('serves the version-1 shared table read-only until a clear drops it', () => {
    const db = new Database(':memory:');
    db.exec(`
      CREATE TABLE text_docs (id INTEGER PRIMARY KEY, org TEXT NOT NULL, uid TEXT NOT NULL, node_type TEXT NOT NULL, layer TEXT NOT NULL, UNIQUE (org, uid));
      CREATE VIRTUAL TABLE text_fts USING fts5(label, summary, body, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);
      CREATE VIRTUAL TABLE text_fts_vocab USING fts5vocab(text_fts, 'row');
      INSERT INTO text_docs VALUES (1, 'old', 'n1', 'Note', 'reality'), (2, 'other', 'n2', 'Note', 'reality');
      INSERT INTO text_fts (rowid, label, summary, body) VALUES (1, 'puffin colony', '', ''), (2, 'puffin', '', '');
    `);
    const index = new SqliteTextIndex(db);
    expect(index.searchSync({ org: 'old', query: 'puffins', limit: 5 }).map((h) => h.uid)).toEqual(['n1']);
    expect(index.searchSync({ org: 'old', query: 'puffin colony', limit: 5, node_types: ['Note'] }).map((h) => h.uid)).toEqual(['n1']);
    expect(index.countSync('old')).toBe(1);
    // a write goes to the organization's own tables, which from then on answer for it
    index.upsertSync([note('old', 'n3', 'puffin')]);
    expect(index.searchSync({ org: 'old', query: 'puffin', limit: 5 }).map((h) => h.uid)).toEqual(['n3']);
    expect(index.searchSync({ org: 'other', query: 'puffin', limit: 5 }).map((h) => h.uid)).toEqual(['n2']);
    index.clearSync();
    expect(textTables(db)).toEqual([]);
    expect(index.searchSync({ org: 'other', query: 'puffin', limit: 5 })).toEqual([]);
    expect(index.countSync('other')).toBe(0);
  });

  it.each([5_000, 200, 20])('planned ranking equals plain BM25 over all terms (essential df budget %d)', (budget) => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { essentialDfBudget: budget });
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
    // Zipf-ish vocabulary so that some words are in most rows and others in few.
    const vocab = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}x`);
    const word = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.pow(rand(), 3) * vocab.length))];
    const text = (n: number) => Array.from({ length: 1 + Math.floor(rand() * n) }, word).join(' ');
    const docs = Array.from({ length: 6000 }, (_, i) => ({
      org: i % 5 === 0 ? 'other' : 'o',
      uid: `n${i}`,
      node_type: i % 2 ? 'Claim' : 'Note',
      layer: 'reality',
      label: text(4),
      summary: text(10),
      body: text(30),
    }));
    index.upsertSync(docs);
    const name = db.prepare("SELECT name FROM text_orgs WHERE org = 'o'").pluck().get() as string;
    const exact = db.prepare(
      `SELECT d.uid AS uid, -bm25(text_fts_${name}, 10.0, 4.0, 1.0) AS score
         FROM text_fts_${name} CROSS JOIN text_docs_${name} d ON d.id = text_fts_${name}.rowid
        WHERE text_fts_${name} MATCH ? ORDER BY score DESC, d.uid`,
    );
    for (let n = 0; n < 150; n++) {
      const terms = [...new Set(Array.from({ length: 2 + Math.floor(rand() * 3) }, word))];
      const limit = [1, 5, 20][n % 3];
      const all = exact.all(terms.map((t) => `"${t}"`).join(' OR ')) as Array<{ uid: string; score: number }>;
      const expected = new Map(all.map((r) => [r.uid, r.score]));
      const got = index.searchSync({ org: 'o', query: terms.join(' '), limit });
      expect(got.length).toBe(Math.min(limit, all.length));
      got.forEach((hit, i) => {
        // same score as the plain query gives that row, and the i-th best score overall
        // (terms left out for their 1e-6 IDF floor may shift scores by ≤ 2.2e-6 each)
        expect(Math.abs(hit.score - expected.get(hit.uid)!)).toBeLessThan(1e-5);
        expect(Math.abs(hit.score - all[i].score)).toBeLessThan(1e-5);
      });
    }
  });

  it('ranks rows matching only common terms at 0, by salience then uid, from any page and through filters', async () => {
    const db = new Database(':memory:');
    // small thresholds, so that 3,000 rows exercise the planned paths
    const index = new SqliteTextIndex(db, { commonTermRows: 100, essentialDfBudget: 50 });
    const rand = seededRandom(99);
    const words = ['river', 'stone', 'cloud', 'ember', 'harbor', 'meadow', 'signal', 'copper', 'lantern', 'orbit'];
    const docs: TextDocument[] = Array.from({ length: 3000 }, (_, i) => ({
      org: 'o',
      uid: `u${Math.floor(rand() * 1e9).toString(36)}${i}`,
      node_type: i % 40 === 0 ? 'Rare' : 'Concept',
      layer: i % 3 ? 'reality' : 'epistemic',
      label: `entity ${i % 700}`,
      summary: `about ${words[i % words.length]} number ${i % 700}`,
      body: i % 2 ? 'common filler text' : '',
      salience: [0.1, 0.5, 0.5, 0.9][Math.floor(rand() * 4)],
    }));
    index.upsertSync(docs);
    const has = (...ws: string[]) => (d: TextDocument) => `${d.label} ${d.summary} ${d.body}`.split(' ').some((w) => ws.includes(w));
    const pages: Array<[number, number]> = [[0, 1], [0, 20], [3, 17], [40, 20], [1500, 30]];
    for (const query of ['entity 42', 'number 777', 'river number 7', 'entity', 'entity number about']) {
      const terms = query.split(' ');
      await expectExactTieOrder(index, { org: 'o', query }, docs, has(...terms), pages);
      const filtered = (f: (d: TextDocument) => boolean) => docs.filter(f);
      await expectExactTieOrder(index, { org: 'o', query, node_types: ['Rare'] }, filtered((d) => d.node_type === 'Rare'), has(...terms), pages);
      await expectExactTieOrder(index, { org: 'o', query, layer: 'epistemic' }, filtered((d) => d.layer === 'epistemic'), has(...terms), pages);
      const scope = docs.filter(() => rand() < 0.2).map((d) => d.uid);
      const inScope = new Set(scope);
      await expectExactTieOrder(index, { org: 'o', query, uids: scope }, filtered((d) => inScope.has(d.uid)), has(...terms), pages);
    }
    // the common terms add nothing; the rare one scores as FTS5 scores it alone
    const hits = index.searchSync({ org: 'o', query: 'entity 42', limit: 50 });
    const alone = index.searchSync({ org: 'o', query: '42', limit: 50 });
    expect(hits.slice(0, alone.length)).toEqual(alone);
    for (const h of hits.slice(alone.length)) expect(h.score).toBe(0);
    expect(index.searchSync({ org: 'o', query: 'entity 42', limit: 50, min_score: 1e-9 })).toEqual(alone);
  });
});

describe('SqliteTextIndex walks that score rows in JavaScript', () => {
  it('score two query words of one stem as bm25() does, as two phrases (the type walk gives way to the statement)', () => {
    const docs = Array.from({ length: 1_500 }, (_, i) =>
      note('o', `n${String(i).padStart(4, '0')}`, i % 3 === 0 ? `connected items ${i}` : i % 3 === 1 ? `connect ${i} connect` : `other words ${i}`, { node_type: i % 2 ? 'Note' : 'Concept' }),
    );
    const walked = new SqliteTextIndex(new Database(':memory:'), { typeWalkRatio: 0 });
    const planned = new SqliteTextIndex(new Database(':memory:'));
    walked.upsertSync(docs);
    planned.upsertSync(docs);
    const q = { org: 'o', query: 'connect connected', node_types: ['Note'], limit: 10 };
    expect(walked.searchSync(q)).toEqual(planned.searchSync(q));
    // unfiltered, the page ends inside a tie of 500 rows: still FTS5's own order (bm25 with the
    // index's weights, then salience, then uid)
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db);
    index.upsertSync(docs);
    const name = db.prepare('SELECT name FROM text_orgs WHERE org = ?').pluck().get('o') as string;
    const fts = `text_fts_${name}`;
    const expected = db
      .prepare(`SELECT d.uid FROM ${fts} JOIN text_docs_${name} d ON d.id = ${fts}.rowid WHERE ${fts} MATCH ? ORDER BY bm25(${fts}, 10.0, 4.0, 1.0), d.salience DESC, d.uid LIMIT 5`)
      .pluck()
      .all('"connect" OR "connected"');
    expect(index.searchSync({ org: 'o', query: 'connect connected', limit: 5 }).map((h) => h.uid)).toEqual(expected);
  });
});

describe('SqliteTextIndex document frequencies between writes', () => {
  // With commonTermRows 0, `alpha` adds nothing while it is in at least half the rows: its
  // score tells which document frequency and row count the query was planned with.
  const base = [note('o', 'a1', 'alpha one'), note('o', 'a2', 'alpha two'), note('o', 'b3', 'beta three'), note('o', 'g4', 'gamma four')];
  const alphaScores = (index: SqliteTextIndex) => index.searchSync({ org: 'o', query: 'alpha', limit: 10 }).map((h) => h.score > 0);

  it("follow this handle's writes, and a rolled-back write leaves no trace", () => {
    const db = new Database(':memory:');
    const index = new SqliteTextIndex(db, { commonTermRows: 0 });
    index.upsertSync(base);
    expect(alphaScores(index)).toEqual([false, false]);
    const rolledBack = db.transaction(() => {
      index.upsertSync([note('o', 'd5', 'delta five')]);
      // (FTS5's row count may lag inside the transaction: whatever is read here is not kept)
      alphaScores(index);
      throw new Error('roll back');
    });
    expect(() => rolledBack()).toThrow('roll back');
    expect(alphaScores(index)).toEqual([false, false]);
    index.upsertSync([note('o', 'd5', 'delta five')]);
    expect(alphaScores(index)).toEqual([true, true]);
    index.removeSync('o', ['a1']);
    expect(alphaScores(index)).toEqual([true]); // 1 of 4 rows: scored
  });

  it('are kept across queries that only tokenize new words (the scratch table changes no indexed row)', () => {
    const executed: string[] = [];
    const db = new Database(':memory:', { verbose: (sql) => executed.push(String(sql)) });
    const index = new SqliteTextIndex(db, { commonTermRows: 0 });
    index.upsertSync(base);
    const dfReads = () => executed.filter((sql) => /SELECT doc FROM .*vocab/.test(sql)).length;
    index.searchSync({ org: 'o', query: 'alpha beta', limit: 10 });
    const afterFirst = dfReads();
    expect(afterFirst).toBeGreaterThan(0);
    // a word never seen before goes through FTS5's scratch tokenizer (a temp-table write)
    index.searchSync({ org: 'o', query: 'alpha neverseen', limit: 10 });
    const afterSecond = dfReads();
    index.searchSync({ org: 'o', query: 'alpha beta', limit: 10 });
    expect(dfReads()).toBe(afterSecond);
    // a real write still drops them
    index.upsertSync([note('o', 'd5', 'delta five')]);
    index.searchSync({ org: 'o', query: 'alpha beta', limit: 10 });
    expect(dfReads()).toBeGreaterThan(afterSecond);
  });

  it('follow a commit by another connection (a rebuilt database copied in is one)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'strata-text-df-'));
    try {
      const file = join(dir, 'projections.db');
      const reader = new SqliteTextIndex(new Database(file), { commonTermRows: 0 });
      const writer = new SqliteTextIndex(new Database(file), { commonTermRows: 0 });
      writer.upsertSync(base);
      expect(alphaScores(reader)).toEqual([false, false]);
      writer.upsertSync([note('o', 'd5', 'delta five')]);
      expect(alphaScores(reader)).toEqual([true, true]); // 2 of 5 rows
      writer.upsertSync([note('o', 'a6', 'alpha six')]);
      expect(alphaScores(reader)).toEqual([false, false, false]); // 3 of 6 rows
      writer.removeSync('o', ['a6', 'd5']);
      expect(alphaScores(reader)).toEqual([false, false]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
