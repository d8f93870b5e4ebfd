import { Logger } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';

const log = new Logger('StorageCompaction');

/**
 * Whether a VACUUM is worth its cost. It rewrites the whole file while every tenant's request
 * waits (2 s for a 390 MB installation, whatever the clear removed), so it runs only when the
 * clear left a good share of the file free: at least MIN_RECLAIM_SHARE of its pages, or
 * MIN_RECLAIM_BYTES. Smaller free space is reused by the next writes anyway.
 */
export function worthCompacting(f: { freePages: number; pageCount: number; pageSize: number }): boolean {
  return f.freePages > 0 && (f.freePages >= f.pageCount * MIN_RECLAIM_SHARE || f.freePages * f.pageSize >= MIN_RECLAIM_BYTES);
}
const MIN_RECLAIM_SHARE = 0.25;
const MIN_RECLAIM_BYTES = 256 * 1024 * 1024;

function compact(db: Database, what: string): void {
  if (db.inTransaction) {
    log.warn(`${what}: a transaction is open; compaction skipped`);
    return;
  }
  const file = {
    freePages: db.pragma('freelist_count', { simple: true }) as number,
    pageCount: db.pragma('page_count', { simple: true }) as number,
    pageSize: db.pragma('page_size', { simple: true }) as number,
  };
  if (!worthCompacting(file)) {
    log.debug(`${what}: ${file.freePages} of ${file.pageCount} pages free; compaction not worth it`);
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
 * Gives freed pages back to the file system after a clear (REFERENCE §8.9) when enough were
 * freed to be worth it (worthCompacting). Run it where no
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
