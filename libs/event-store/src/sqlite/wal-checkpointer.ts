import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';

export interface CheckpointedFile {
  /** the service's own connection to the file (its automatic checkpoints are raised to a safety net) */
  db: Database;
  file: string;
  /** the connection's synchronous level, which checkpoints of the file keep */
  synchronous: 'FULL' | 'NORMAL' | 'OFF';
  /** what listeners are told the file is called (default: its path) */
  name?: string;
  /**
   * The worker starts the WAL over once it is fully copied, so the writer's commit never
   * syncs a new WAL header (see WORKER_SOURCE). Its price: the writer's connection drops its
   * page cache after each such commit of another connection. Nothing to gain at `OFF`.
   */
  startOver?: boolean;
}

/** One checkpoint that copied pages, measured on the worker. */
export interface CheckpointDone {
  name: string;
  mode: 'passive' | 'restart';
  seconds: number;
  /** WAL pages copied into the database file */
  pages: number;
}

export interface WalCheckpointerOptions {
  /** how often the worker checkpoints each file (ms) */
  intervalMs?: number;
  /**
   * WAL pages past which the service's own connection still checkpoints inline (SQLite's
   * automatic checkpoint), should the worker fall behind
   */
  safetyNetPages?: number;
  /**
   * WAL pages past which the worker also tries to restart the WAL from its beginning (see
   * WORKER_SOURCE); below the safety net, so the service's connection rarely has to
   */
  restartPages?: number;
}

// Plain JavaScript, so it runs the same from dist/ and under ts-jest/swc.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const dbs = workerData.files.map((f) => {
  const db = new Database(f.file, { fileMustExist: true });
  db.pragma('busy_timeout = 0');
  // A checkpoint syncs the same under FULL and NORMAL (SQLite passes both the same checkpoint
  // sync flags); NORMAL keeps this connection's only commit, the start-over below, to the one
  // sync of the WAL header.
  db.pragma('synchronous = ' + (f.synchronous === 'FULL' ? 'NORMAL' : f.synchronous));
  return db;
});
const { performance } = require('node:perf_hooks');
// SQLite reports the pages checkpointed since the WAL last started over; what a round copied is
// the growth of that figure (or all of it once the WAL has started over: it is smaller again)
const last = dbs.map(() => ({ log: 0, done: 0 }));
const copied = (i, r) => {
  const prev = last[i];
  const n = r.log < prev.log || r.checkpointed < prev.done ? r.checkpointed : r.checkpointed - prev.done;
  last[i] = { log: r.log, done: r.checkpointed };
  return n;
};
// Whoever writes the first frame of a WAL that starts over writes a new header and, unless the
// connection is synchronous=OFF, fsyncs it before any frame (SQLite's walFrames: frames of the
// new cycle must never sit behind the old header after a power loss). Left to the service's
// writer, that fsync runs inside its COMMIT on the event loop. So once a WAL is fully copied
// the worker starts it over itself, with a commit that changes nothing (user_version written
// back as it is); the writer's next commit then appends (files that ask for it: startOver).
// With busy_timeout 0 it never waits:
// when the writer holds the lock, the writer's commit starts the WAL over, as before.
// data_version right after that commit (it moves only with other connections' commits): while
// it stays, nothing but that commit is in the WAL, and the round leaves the file alone.
const startedOver = dbs.map(() => null);
// The gate shared with the service's writer (WriteGate): 0 free, 1 this worker, 2 the writer.
// The worker takes it before anything that holds a write lock (a RESTART, a start-over) and
// skips that step when the writer has it, as it would on SQLITE_BUSY; letting go wakes a writer
// waiting for it, which then begins at once instead of sleeping in SQLite's busy handler.
const gate = workerData.gate ? new Int32Array(workerData.gate) : null;
const holding = (fn) => {
  if (gate && Atomics.compareExchange(gate, 0, 0, 1) !== 0) return false;
  try {
    fn();
  } finally {
    if (gate && Atomics.compareExchange(gate, 0, 1, 0) === 1) Atomics.notify(gate, 0);
  }
  return true;
};
// Older SQLite can race a writer against another connection's start-over of the WAL (fixed in
// 3.52.0): there the writer keeps starting it over, as it always did.
const startOverSafe = (() => {
  const v = String(new Database(':memory:').prepare('SELECT sqlite_version()').pluck().get()).split('.').map(Number);
  return v[0] > 3 || (v[0] === 3 && v[1] >= 52);
})();
const startOver = (i, version) => {
  const db = dbs[i];
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    return; // the writer is in a transaction
  }
  try {
    const now = db.pragma('data_version', { simple: true });
    db.pragma('user_version = ' + db.pragma('user_version', { simple: true }));
    db.exec('COMMIT');
    // a commit of the writer's since the round began is not copied yet: the next round looks
    startedOver[i] = now === version ? now : null;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    startedOver[i] = null;
  }
};
// checkpoints that copied pages, sent to the main thread once per tick (none when idle)
const tick = () => {
  const done = [];
  dbs.forEach((db, i) => {
    try {
      const version = db.pragma('data_version', { simple: true });
      if (version === startedOver[i]) return;
      let t0 = performance.now();
      let r = db.pragma('wal_checkpoint(PASSIVE)')[0];
      const n = r.log >= 0 ? copied(i, r) : 0;
      if (n > 0) done.push([i, 'passive', (performance.now() - t0) / 1000, n]);
      // A WAL only starts again from its beginning when a writer finds it fully copied, which
      // a busy writer never does: it would grow until the writer's own (inline) checkpoint.
      // RESTART takes the write lock between the writer's transactions (busy_timeout 0: it
      // falls back to passive when the writer is busy) and copies the few pages left.
      if (r.busy === 0 && r.log > workerData.restartPages)
        holding(() => {
          t0 = performance.now();
          r = db.pragma('wal_checkpoint(RESTART)')[0];
          done.push([i, 'restart', (performance.now() - t0) / 1000, copied(i, r)]);
        });
      if (startOverSafe && workerData.files[i].startOver && r.busy === 0 && r.log > 0 && r.checkpointed === r.log) holding(() => startOver(i, version));
    } catch (err) {
      // busy (another checkpoint or a backup running): the next tick tries again
    }
  });
  if (done.length) parentPort.postMessage({ checkpoints: done });
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (m) => {
  if (m === 'tick') {
    tick();
    return parentPort.postMessage('ticked');
  }
  if (m !== 'close') return;
  clearInterval(timer);
  for (const db of dbs) db.close();
  parentPort.postMessage('closed');
});
`;

/** Atomics.waitAsync (Node 16 and later), which the compiler's ES2022 library does not declare */
type WaitAsync = (cell: Int32Array, index: number, value: number, timeoutMs: number) => { async: false; value: string } | { async: true; value: Promise<string> };
const waitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync.bind(Atomics);

const FREE = 0;
const WORKER = 1;
const WRITER = 2;

/**
 * The service's writer and the checkpointer's worker announce to each other, through one shared
 * cell, when they are about to hold the checkpointed files' write locks. The writer takes it
 * around each batch (BEGIN IMMEDIATE to COMMIT); the worker around a RESTART or a start-over,
 * and skips those while the writer holds it. A writer finding the worker inside waits for it
 * on a promise the worker's release settles (Atomics.waitAsync): the event loop goes on reading
 * requests meanwhile and the batch begins as soon as the lock is free, where SQLite's busy
 * handler slept the whole event loop in steps of 1, 2, 5, 10 ms. The SQLite locks stay the
 * rule (busy_timeout still covers any other connection); the gate only keeps the two from
 * meeting there.
 */
export class WriteGate {
  constructor(
    private readonly cell: Int32Array,
    /** how long a writer waits for the worker before it goes on to the lock itself (ms) */
    private readonly patienceMs = 5000,
  ) {}

  /**
   * Takes the gate for the writer: null when it is taken, otherwise a promise that settles
   * once the worker lets go (or after `patienceMs`, when the writer takes it anyway and
   * meets the lock in SQLite's busy handler as before); then call again.
   */
  enter(): Promise<void> | null {
    const held = Atomics.compareExchange(this.cell, 0, FREE, WRITER);
    if (held === FREE || held === WRITER) return null;
    const w = waitAsync(this.cell, 0, held, this.patienceMs);
    if (!w.async) return Promise.resolve();
    return w.value.then((r) => {
      if (r === 'timed-out') Atomics.compareExchange(this.cell, 0, held, WRITER);
    });
  }

  /** The writer's batch ended (committed or rolled back). */
  leave(): void {
    Atomics.compareExchange(this.cell, 0, WRITER, FREE);
  }

  /** The worker is gone: whatever it held is free. */
  release(): void {
    if (Atomics.compareExchange(this.cell, 0, WORKER, FREE) === WORKER) Atomics.notify(this.cell, 0);
  }
}

/**
 * Checkpoints SQLite WAL files on a worker thread with its own connections, so that copying
 * WAL pages into the database and the fsyncs around it never block the event loop; writers
 * on the main thread only append to the WAL (and fsync it on commit where the connection says
 * so). A PASSIVE checkpoint never waits for, nor blocks, the writer; past `restartPages`
 * a RESTART checkpoint may hold the writer back for the few pages the passive ones left. A
 * file may ask the worker to start its WAL over once fully copied (a commit that changes
 * nothing), so the sync of the new WAL header is the worker's too, not the writer's.
 * SQLite's automatic checkpoint stays on as a safety net at a much larger WAL size.
 */
export class WalCheckpointer {
  private worker: Worker | null;
  private closing: Promise<void> | null = null;
  /** callers of checkpointNow, answered in order */
  private readonly ticks: (() => void)[] = [];
  private readonly listeners: ((c: CheckpointDone) => void)[] = [];
  /** taken by the service's writer around each batch (see WriteGate) */
  readonly writeGate: WriteGate;

  constructor(files: CheckpointedFile[], opts: WalCheckpointerOptions = {}) {
    const safetyNet = Math.max(1000, Math.floor(opts.safetyNetPages ?? 20_000));
    const restartPages = Math.max(1, Math.floor(opts.restartPages ?? Math.min(4_000, safetyNet / 2)));
    for (const f of files) f.db.pragma(`wal_autocheckpoint = ${safetyNet}`);
    const gate = new SharedArrayBuffer(4);
    this.writeGate = new WriteGate(new Int32Array(gate));
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        files: files.map((f) => ({ file: f.file, synchronous: f.synchronous, startOver: f.startOver === true && f.synchronous !== 'OFF' })),
        intervalMs: Math.max(10, Math.floor(opts.intervalMs ?? 200)),
        restartPages,
        gate,
      },
    });
    // a failed worker only means checkpoints happen inline again (the safety net)
    this.worker.on('error', () => undefined);
    const names = files.map((f) => f.name ?? f.file);
    this.worker.on('message', (m: unknown) => {
      if (m === 'ticked') this.ticks.shift()?.();
      else if (typeof m === 'object' && m !== null && 'checkpoints' in m) {
        for (const [i, mode, seconds, pages] of (m as { checkpoints: [number, CheckpointDone['mode'], number, number][] }).checkpoints)
          for (const l of this.listeners) l({ name: names[i], mode, seconds, pages });
      }
    });
    this.worker.unref();
  }

  /** Told of each checkpoint that copied pages (metrics). */
  onCheckpoint(listener: (c: CheckpointDone) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Runs one round of checkpoints now, on the worker, and resolves when it is done (at once
   * once closed). The interval does the same on its own; a test calls this instead of waiting.
   */
  checkpointNow(): Promise<void> {
    const w = this.worker;
    if (!w) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.ticks.push(resolve);
      w.postMessage('tick');
    });
  }

  /** Stops the worker after closing its connections (before the owner closes its own). */
  close(): Promise<void> {
    this.closing ??= new Promise<void>((resolve) => {
      const w = this.worker;
      this.worker = null;
      if (!w) return resolve();
      const done = () => {
        clearTimeout(timer);
        for (const t of this.ticks.splice(0)) t();
        this.writeGate.release();
        void w.terminate().then(() => resolve(), () => resolve());
      };
      const timer = setTimeout(done, 5000);
      w.on('message', (m) => m === 'closed' && done());
      w.once('exit', done);
      w.postMessage('close');
    });
    return this.closing;
  }
}
