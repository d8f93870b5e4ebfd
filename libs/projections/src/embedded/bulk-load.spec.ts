import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { beginBulkLoad } from './bulk-load';

describe('beginBulkLoad', () => {
  it('drops the secondary indexes of the deferrable tables while loading and restores them and WAL after', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-bulk-'));
    const db = new Database(path.join(dir, 'p.db'));
    try {
      db.pragma('journal_mode = WAL');
      db.exec('CREATE TEMP TABLE scratch (x)');
      db.exec(`CREATE TABLE nodes (org TEXT, uid TEXT, t TEXT, PRIMARY KEY (org, uid));
               CREATE INDEX nodes_t ON nodes(org, t);
               CREATE TABLE aliases (a TEXT PRIMARY KEY, b TEXT);
               CREATE INDEX aliases_b ON aliases(b);`);
      const indexes = () => db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name").pluck().all();
      db.pragma('cache_size = -4000');
      const finish = beginBulkLoad(db, ['nodes']);
      expect(indexes()).toEqual(['aliases_b']);
      expect(db.pragma('journal_mode', { simple: true })).toBe('memory');
      db.prepare('INSERT INTO nodes VALUES (?, ?, ?)').run('o', 'u', 'Goal');
      finish();
      expect(indexes()).toEqual(['aliases_b', 'nodes_t']);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      // the index builds' sorter settings do not outlive them
      expect(db.pragma('threads', { simple: true })).toBe(0);
      expect(db.pragma('cache_size', { simple: true })).toBe(-4000);
      // the TEMP database was left alone, so a checkpoint of every database still works
      expect(() => db.pragma('wal_checkpoint(TRUNCATE)')).not.toThrow();
      expect(db.prepare("SELECT uid FROM nodes INDEXED BY nodes_t WHERE org = 'o' AND t = 'Goal'").pluck().all()).toEqual(['u']);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
