import Database from 'better-sqlite3';
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

  it('limits the dump to the tables asked for', () => {
    const db = new Database(':memory:');
    db.exec('CREATE TABLE a (x PRIMARY KEY); CREATE TABLE b (y PRIMARY KEY);');
    expect(dumpSources(db, ['b']).map((s) => s.table)).toEqual(['b']);
  });
});
