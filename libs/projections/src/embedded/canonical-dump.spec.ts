import Database from 'better-sqlite3';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { TextDocument } from '@strata/text-index/text-index.port';
import { dumpRows, dumpSources } from './canonical-dump';

function fts(db: Database.Database) {
  db.exec(`CREATE VIRTUAL TABLE t_fts USING fts5(label, body, content = '', contentless_delete = 1)`);
}

describe('dumpSources', () => {
  it('reads plain tables ordered by their primary key, and skips bookkeeping tables', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE nodes (org TEXT, uid TEXT, v INTEGER, PRIMARY KEY (uid, org));
             CREATE TABLE checkpoints (name TEXT PRIMARY KEY);
             INSERT INTO nodes VALUES ('o', 'b', 1), ('p', 'a', 2), ('o', 'a', 3);`);
    const [src, ...rest] = dumpSources(db);
    expect(rest).toEqual([]);
    expect(src).toMatchObject({ table: 'nodes', columns: ['org', 'uid', 'v'], key: [1, 0] });
    expect([...dumpRows(db, src)]).toEqual([['o', 'a', 3], ['p', 'a', 2], ['o', 'b', 1]]);
  });

  it('reads a table without primary key by all its columns', () => {
    const db = new Database(':memory:');
    db.exec(`CREATE TABLE log (a TEXT, b INTEGER); INSERT INTO log VALUES ('x', 2), ('x', 1);`);
    const [src] = dumpSources(db);
    expect(src.key).toEqual([0, 1]);
    expect([...dumpRows(db, src)]).toEqual([['x', 1], ['x', 2]]);
  });

  it('dumps an FTS5 index by its token instances, the same however its segments were merged', () => {
    const one = new Database(':memory:');
    const two = new Database(':memory:');
    fts(one);
    fts(two);
    // the same final content, reached through different write histories
    one.prepare("INSERT INTO t_fts(rowid, label, body) VALUES (1, 'Graph stores', 'nodes and edges')").run();
    two.prepare("INSERT INTO t_fts(rowid, label, body) VALUES (1, 'stale', 'text')").run();
    two.prepare('DELETE FROM t_fts WHERE rowid = 1').run();
    two.prepare("INSERT INTO t_fts(rowid, label, body) VALUES (1, 'Graph stores', 'nodes and edges')").run();
    const a = dumpSources(one);
    const b = dumpSources(two);
    expect(a.map((s) => s.table)).toEqual(['t_fts']);
    expect([...dumpRows(one, a[0])]).toEqual([...dumpRows(two, b[0])]);
    expect([...dumpRows(one, a[0])]).toContainEqual(['graph', 1, 'label', 0]);
  });

  it("reads the full-text index by node uid, not by its row ids, with bm25()'s statistics", () => {
    const doc = (uid: string, label: string): TextDocument => ({ org: 'o', uid, node_type: 'Note', layer: 'reality', label, summary: '', body: 'shared words' });
    const dump = (db: Database.Database) => dumpSources(db).map((s) => ({ table: s.table, columns: s.columns, rows: [...dumpRows(db, s)] }));
    const one = new Database(':memory:');
    new SqliteTextIndex(one).upsertSync([doc('a', 'alpha'), doc('b', 'beta gamma'), doc('c', 'gamma')]);
    // the same documents, numbered otherwise: written in another order, one purged meanwhile
    const two = new Database(':memory:');
    const index = new SqliteTextIndex(two);
    index.upsertSync([doc('gone', 'purged later'), doc('c', 'draft'), doc('b', 'beta gamma'), doc('a', 'alpha')]);
    index.upsertSync([doc('c', 'gamma')]);
    index.removeSync('o', ['gone']);
    const a = dump(one);
    expect(dump(two)).toEqual(a);
    const name = one.prepare('SELECT name FROM text_orgs').pluck().get() as string;
    const byTable = Object.fromEntries(a.map((s) => [s.table, s]));
    expect(Object.keys(byTable).sort()).toEqual(['text_orgs', `text_docs_${name}`, `text_fts_${name}`, `text_fts_${name}_content`, `text_fts_${name}_data`].sort());
    expect(byTable[`text_docs_${name}`].rows).toEqual([['a', 'Note', 'reality'], ['b', 'Note', 'reality'], ['c', 'Note', 'reality']]);
    expect(byTable[`text_fts_${name}`].rows).toContainEqual(['gamma', 'b', 'label', 1]);
    expect(byTable[`text_fts_${name}_content`].rows[0]).toEqual(['a', 'alpha', '', 'shared words']);
    expect(byTable[`text_fts_${name}_data`].rows).toEqual([['rows', 3], ['tokens in body', 6], ['tokens in label', 4], ['tokens in summary', 0]]);
    // a version-2 table (contentless_delete) kept counting the removed row: the statistics differ
    const v2 = new Database(':memory:');
    const v2Index = new SqliteTextIndex(v2);
    v2.exec(`
      INSERT INTO text_orgs (org, name) VALUES ('o', '${name}');
      CREATE TABLE text_docs_${name} (id INTEGER PRIMARY KEY, uid TEXT NOT NULL UNIQUE, node_type TEXT NOT NULL, layer TEXT NOT NULL);
      CREATE VIRTUAL TABLE text_fts_${name} USING fts5(label, summary, body, tokenize = 'porter unicode61 remove_diacritics 2', content = '', contentless_delete = 1);`);
    v2Index.upsertSync([doc('gone', 'purged later'), doc('a', 'alpha'), doc('b', 'beta gamma'), doc('c', 'gamma')]);
    v2Index.removeSync('o', ['gone']);
    const v2Dump = dump(v2);
    expect(v2Dump.find((s) => s.table === `text_fts_${name}`)).toEqual(byTable[`text_fts_${name}`]);
    expect(v2Dump.find((s) => s.table === `text_fts_${name}_data`)!.rows).toEqual([['rows', 4], ['tokens in body', 8], ['tokens in label', 6], ['tokens in summary', 0]]);
  });

  it('limits the dump to the tables asked for', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE a (x PRIMARY KEY); CREATE TABLE b (y PRIMARY KEY);');
    expect(dumpSources(db, ['b']).map((s) => s.table)).toEqual(['b']);
  });
});
