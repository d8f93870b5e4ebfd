import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beginImmediate } from './begin-immediate';

describe('beginImmediate', () => {
  let dir: string;
  let ours: Database.Database;
  let other: Database.Database;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-begin-'));
    const file = join(dir, 'x.db');
    ours = new Database(file);
    ours.pragma('journal_mode = WAL');
    ours.pragma('busy_timeout = 5000');
    ours.exec('CREATE TABLE t (x INTEGER)');
    other = new Database(file, { timeout: 0 });
  });
  afterEach(() => {
    ours.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a free write lock at once and keeps the connection\'s busy timeout', async () => {
    await beginImmediate(ours);
    expect(ours.inTransaction).toBe(true);
    expect(() => other.exec('BEGIN IMMEDIATE')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    ours.exec('COMMIT');
    expect(ours.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('waits for a lock another connection holds between tries, without sleeping in the busy handler', async () => {
    other.exec('BEGIN IMMEDIATE');
    let tries = 0;
    // the other connection lets go at the third pause: each pause is a turn of the event loop
    const begun = beginImmediate(ours, async () => {
      if (++tries === 3) other.exec('COMMIT');
    });
    await begun;
    expect(tries).toBe(3);
    expect(ours.inTransaction).toBe(true);
    ours.exec('INSERT INTO t VALUES (1)');
    ours.exec('COMMIT');
    expect(ours.pragma('busy_timeout', { simple: true })).toBe(5000);
  });

  it('gives up with SQLITE_BUSY after about as many 1 ms tries as the busy timeout allows', async () => {
    ours.pragma('busy_timeout = 20');
    other.exec('BEGIN IMMEDIATE');
    let tries = 0;
    await expect(beginImmediate(ours, async () => void tries++)).rejects.toMatchObject({ code: 'SQLITE_BUSY' });
    expect(tries).toBe(20);
    expect(ours.inTransaction).toBe(false);
    expect(ours.pragma('busy_timeout', { simple: true })).toBe(20);
    other.exec('ROLLBACK');
  });
});
