import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WalCheckpointer } from './wal-checkpointer';

describe('WalCheckpointer', () => {
  let dir: string;
  let db: Database.Database;
  let file: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'strata-ckpt-'));
    file = join(dir, 'x.db');
    db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE t (x TEXT)');
  });
  afterEach(() => {
    if (db.open) db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed WAL pages into the database file from its own thread', async () => {
    // the interval is long: the test asks for the checkpoint itself
    const checkpointer = new WalCheckpointer([{ db, file, synchronous: 'FULL', name: 'x' }], { intervalMs: 60_000 });
    const done: { name: string; mode: string; seconds: number; pages: number }[] = [];
    checkpointer.onCheckpoint((c) => done.push(c));
    try {
      // the writer's own automatic checkpoint now waits for a much larger WAL
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(20_000);
      const before = statSync(file).size;
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200));
      })();
      // 2000 rows are ~100 WAL pages: far below any automatic checkpoint of the writer
      await checkpointer.checkpointNow();
      expect(statSync(file).size).toBeGreaterThan(before + 200_000);
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 2000 });
      // the round is reported before checkpointNow resolves: which file, how, how many pages
      expect(done).toEqual([{ name: 'x', mode: 'passive', seconds: expect.any(Number), pages: expect.any(Number) }]);
      expect(done[0].pages).toBeGreaterThan(40);
      // an idle round copies nothing and reports nothing
      await checkpointer.checkpointNow();
      expect(done).toHaveLength(1);
    } finally {
      await checkpointer.close();
    }
  });

  it('closes its connections and stops on close, idempotently', async () => {
    const checkpointer = new WalCheckpointer([{ db, file, synchronous: 'NORMAL' }], { intervalMs: 20 });
    await Promise.all([checkpointer.close(), checkpointer.close()]);
    db.prepare('INSERT INTO t VALUES (?)').run('after');
    db.close();
    // the service's connection was the last one: closing it checkpointed and removed the WAL
    expect(() => statSync(`${file}-wal`)).toThrow();
  });

  it('restarts a growing WAL from its beginning between the writer\'s transactions, without the writer checkpointing', async () => {
    // the worker's own interval drives this one: a restart must come between the writer's
    // transactions as they happen, which a round asked for at a fixed point cannot show
    const checkpointer = new WalCheckpointer([{ db, file, synchronous: 'NORMAL' }], { intervalMs: 10, safetyNetPages: 100_000, restartPages: 100 });
    try {
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      // 60 transactions of ~100 pages each, 1 ms apart: a passive checkpoint never finds the
      // WAL fully copied when the next one starts, so without restarts it reaches ~27 MB
      for (let round = 0; round < 60; round++) {
        db.transaction(() => {
          for (let i = 0; i < 2000; i++) insert.run('y'.repeat(200));
        })();
        await new Promise((r) => setTimeout(r, 1));
      }
      expect(statSync(`${file}-wal`).size).toBeLessThan(16 * 1024 * 1024);
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 120_000 });
    } finally {
      await checkpointer.close();
    }
  });
});
