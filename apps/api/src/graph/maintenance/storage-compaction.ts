import { Logger } from '@nestjs/common';
import type { Database } from 'better-sqlite3';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';

const log = new Logger('StorageCompaction');

function compact(db: Database, what: string): void {
  if (db.inTransaction) {
    log.warn(`${what}: a transaction is open; compaction skipped`);
    return;
  }
  db.exec('VACUUM');
  // VACUUM goes through the WAL in WAL mode: fold it back and truncate it
  db.pragma('wal_checkpoint(TRUNCATE)');
}

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
