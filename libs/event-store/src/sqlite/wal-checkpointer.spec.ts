import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { WalCheckpointer, WriteGate } from './wal-checkpointer';

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

  /** the WAL header's checkpoint sequence and salts: they change exactly when the WAL starts over */
  const walCycle = () => readFileSync(`${file}-wal`).subarray(12, 24).toString('hex');
  const walFrames = () => (db.pragma('wal_checkpoint(PASSIVE)') as { log: number }[])[0].log;

  it('starts a fully copied WAL over itself, so the writer\'s next commit appends instead of writing (and syncing) a new header', async () => {
    db.pragma('synchronous = NORMAL');
    const checkpointer = new WalCheckpointer([{ db, file, synchronous: 'FULL', name: 'x', startOver: true }], { intervalMs: 60_000 });
    const done: unknown[] = [];
    checkpointer.onCheckpoint((c) => done.push(c));
    try {
      const insert = db.prepare('INSERT INTO t VALUES (?)');
      db.transaction(() => {
        for (let i = 0; i < 500; i++) insert.run('x'.repeat(200));
      })();
      const written = walCycle();
      await checkpointer.checkpointNow();
      // copied, then started over by the worker: a new cycle holding only its own commit
      expect(done).toHaveLength(1);
      const started = walCycle();
      expect(started).not.toBe(written);
      expect(db.pragma('user_version', { simple: true })).toBe(0);
      // the writer's commits go on in the worker's cycle
      insert.run('after');
      insert.run('and again');
      expect(walCycle()).toBe(started);
      expect(db.prepare('SELECT count(*) AS n FROM t').get()).toEqual({ n: 502 });
      // after the start-over nothing but the worker's own commit is in the WAL: a round with no
      // commit of the writer's since leaves it alone, and one after a commit starts it over again
      await checkpointer.checkpointNow();
      expect(walCycle()).not.toBe(started);
      const again = walCycle();
      await checkpointer.checkpointNow();
      await checkpointer.checkpointNow();
      expect(walCycle()).toBe(again);
      expect(walFrames()).toBe(1);
    } finally {
      await checkpointer.close();
    }
  });

  it.each([
    ['a file that does not ask for it', 'NORMAL', false],
    ['a synchronous=OFF file (its header is never synced)', 'OFF', true],
  ] as const)('leaves the start-over of %s to its writer', async (_, synchronous, startOver) => {
    db.pragma(`synchronous = ${synchronous}`);
    const checkpointer = new WalCheckpointer([{ db, file, synchronous, startOver }], { intervalMs: 60_000 });
    try {
      db.prepare('INSERT INTO t VALUES (?)').run('x');
      const written = walCycle();
      await checkpointer.checkpointNow();
      expect(walCycle()).toBe(written);
      // the writer's next commit finds the WAL fully copied and starts it over itself
      db.prepare('INSERT INTO t VALUES (?)').run('y');
      expect(walCycle()).not.toBe(written);
    } finally {
      await checkpointer.close();
    }
  });

  it('leaves the write locks to a writer inside the write gate, and starts the WAL over once it has left', async () => {
    db.pragma('synchronous = NORMAL');
    const checkpointer = new WalCheckpointer([{ db, file, synchronous: 'FULL', name: 'x', startOver: true }], { intervalMs: 60_000 });
    try {
      db.prepare('INSERT INTO t VALUES (?)').run('x');
      const written = walCycle();
      expect(checkpointer.writeGate.enter()).toBeNull();
      await checkpointer.checkpointNow();
      // copied (a passive checkpoint takes no write lock) but not started over: the writer holds the gate
      expect(walCycle()).toBe(written);
      expect(walFrames()).toBeGreaterThan(0);
      checkpointer.writeGate.leave();
      await checkpointer.checkpointNow();
      expect(walCycle()).not.toBe(written);
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

describe('WriteGate', () => {
  const WORKER = 1;
  const turn = () => new Promise((r) => setImmediate(r));

  it('lets a writer in at once when nobody holds it, and frees it when the writer leaves', () => {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    const gate = new WriteGate(cell);
    expect(gate.enter()).toBeNull();
    expect(cell[0]).not.toBe(0);
    gate.leave();
    expect(cell[0]).toBe(0);
  });

  it('has a writer finding the worker inside wait, without blocking the event loop, until the worker lets go', async () => {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    const gate = new WriteGate(cell);
    Atomics.store(cell, 0, WORKER);
    const wait = gate.enter();
    expect(wait).not.toBeNull();
    let settled = false;
    void wait!.then(() => (settled = true));
    await turn();
    await turn();
    expect(settled).toBe(false);
    // the worker's release, as its thread does it
    Atomics.store(cell, 0, 0);
    Atomics.notify(cell, 0);
    await wait;
    expect(gate.enter()).toBeNull();
    gate.leave();
  });

  it('frees what a stopped worker held, waking the waiting writer', async () => {
    const cell = new Int32Array(new SharedArrayBuffer(4));
    const gate = new WriteGate(cell);
    Atomics.store(cell, 0, WORKER);
    const wait = gate.enter();
    gate.release();
    await wait;
    expect(gate.enter()).toBeNull();
  });
});
