import { Logger } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';

const log = new Logger('StorageCompaction');

/** Whether a VACUUM gives anything back: only pages the clear freed can be returned. */
export function worthCompacting(freePages: number): boolean {
  return freePages > 0;
}

function compact(db: Database, what: string): void {
  if (db.inTransaction) {
    log.warn(`${what}: a transaction is open; compaction skipped`);
    return;
  }
  if (!worthCompacting(db.pragma('freelist_count', { simple: true }) as number)) {
    log.debug(`${what}: no free pages; nothing to compact`);
    return;
  }
  db.exec('VACUUM');
  // VACUUM goes through the WAL in WAL mode: fold it back and truncate it. The background WAL
  // checkpointer may hold the checkpoint lock at that moment (the pragma then reports busy
  // instead of waiting), so retry briefly until a truncating checkpoint has gone through.
  for (let attempt = 0; attempt < TRUNCATE_ATTEMPTS; attempt++) {
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
    if (!r || r.busy === 0) return;
    Atomics.wait(PAUSE, 0, 0, TRUNCATE_PAUSE_MS);
  }
  log.warn(`${what}: the WAL could not be truncated after VACUUM (checkpoint busy); it shrinks at a later checkpoint`);
}

const TRUNCATE_ATTEMPTS = 100;
const TRUNCATE_PAUSE_MS = 20;
/** a synchronous pause: compaction runs in the unit of work's exclusive slot, nothing else writes meanwhile */
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/**
 * Gives freed pages back to the file system after a clear (REFERENCE §8.9). Run it where no
 * transaction is open on either database (the unit of work's exclusive slot). Failure is
 * logged, never reported: the clear itself has committed.
 */
export function compactEmbeddedStorage(storage: EmbeddedStorage): void {
  for (const [db, what] of [
    [storage.events.db, 'event log'],
    [storage.projections, 'projections'],
  ] as const) {
    try {
      compact(db, what);
    } catch (err) {
      log.error(`${what}: compaction failed: ${(err as Error).message}`);
    }
  }
}
