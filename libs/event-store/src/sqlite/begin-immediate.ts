import type { Database, Statement } from 'better-sqlite3';

/** How a waiting BEGIN lets time pass between two tries; tests pass their own. */
export type LockPause = () => Promise<void>;

const oneMs: LockPause = () => new Promise((resolve) => setTimeout(resolve, 1));

interface Timeouts {
  read: Statement;
  none: Statement;
  /** `PRAGMA busy_timeout = <ms>` by value */
  set: Map<number, Statement>;
}
const timeouts = new WeakMap<Database, Timeouts>();

function timeoutsOf(db: Database): Timeouts {
  let t = timeouts.get(db);
  if (!t) {
    t = { read: db.prepare('PRAGMA busy_timeout').pluck(), none: db.prepare('PRAGMA busy_timeout = 0'), set: new Map() };
    timeouts.set(db, t);
  }
  return t;
}

function setTimeoutTo(db: Database, t: Timeouts, ms: number): void {
  let s = t.set.get(ms);
  if (!s) t.set.set(ms, (s = db.prepare(`PRAGMA busy_timeout = ${Math.floor(ms)}`)));
  s.get();
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

/**
 * `BEGIN IMMEDIATE` on `db` that waits for a write lock another connection holds (the WAL
 * checkpointer's worker for the length of a checkpoint's or a start-over's fsync, an operator
 * tool) on the event loop's timers, where SQLite's busy handler would sleep the thread itself
 * in steps of 1, 2, 5, 10… ms. It tries about as long as the connection's busy timeout (one
 * try per millisecond at least), then throws SQLITE_BUSY as the busy handler would.
 */
export async function beginImmediate(db: Database, pause: LockPause = oneMs): Promise<void> {
  const t = timeoutsOf(db);
  const ms = Number(t.read.get()) || 0;
  for (let attempt = 0; ; attempt++) {
    t.none.get();
    try {
      db.exec('BEGIN IMMEDIATE');
      return;
    } catch (err) {
      if (!isBusy(err) || attempt >= ms) throw err;
    } finally {
      setTimeoutTo(db, t, ms);
    }
    await pause();
  }
}
