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
  db.pragma('synchronous = ' + f.synchronous);
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
// checkpoints that copied pages, sent to the main thread once per tick (none when idle)
const tick = () => {
  const done = [];
  dbs.forEach((db, i) => {
    try {
      let t0 = performance.now();
      const passive = db.pragma('wal_checkpoint(PASSIVE)')[0];
      const n = passive.log >= 0 ? copied(i, passive) : 0;
      if (n > 0) done.push([i, 'passive', (performance.now() - t0) / 1000, n]);
      // A WAL only starts again from its beginning when a writer finds it fully copied, which
      // a busy writer never does: it would grow until the writer's own (inline) checkpoint.
      // RESTART takes the write lock between the writer's transactions (busy_timeout 0: it
      // falls back to passive when the writer is busy), copies the few pages left and lets
      // the writer's next transaction start the WAL over.
      if (passive.busy === 0 && passive.log > workerData.restartPages) {
        t0 = performance.now();
        const restart = db.pragma('wal_checkpoint(RESTART)')[0];
        done.push([i, 'restart', (performance.now() - t0) / 1000, copied(i, restart)]);
      }
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

/**
 * Checkpoints SQLite WAL files on a worker thread with its own connections, so that copying
 * WAL pages into the database and the fsyncs around it never block the event loop; writers
 * on the main thread only append to the WAL (and fsync it on commit where the connection says
 * so). A PASSIVE checkpoint never waits for, nor blocks, the writer; past `restartPages`
 * a RESTART checkpoint may hold the writer back for the few pages the passive ones left.
 * SQLite's automatic checkpoint stays on as a safety net at a much larger WAL size.
 */
export class WalCheckpointer {
  private worker: Worker | null;
  private closing: Promise<void> | null = null;
  /** callers of checkpointNow, answered in order */
  private readonly ticks: (() => void)[] = [];
  private readonly listeners: ((c: CheckpointDone) => void)[] = [];

  constructor(files: CheckpointedFile[], opts: WalCheckpointerOptions = {}) {
    const safetyNet = Math.max(1000, Math.floor(opts.safetyNetPages ?? 20_000));
    const restartPages = Math.max(1, Math.floor(opts.restartPages ?? Math.min(4_000, safetyNet / 2)));
    for (const f of files) f.db.pragma(`wal_autocheckpoint = ${safetyNet}`);
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        files: files.map((f) => ({ file: f.file, synchronous: f.synchronous })),
        intervalMs: Math.max(10, Math.floor(opts.intervalMs ?? 200)),
        restartPages,
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
