import type { Database } from 'better-sqlite3';
import { EVENTS_STREAM_INDEX_SQL, eventsTableSql } from './events-table';

/** SQL function (registered on every log connection) that computes a stream's index key. */
export const STREAM_KEY_FUNCTION = 'strata_stream_key';

/**
 * Upgrades a log written before the stream-key index: the events table had
 * UNIQUE (stream, revision), whose index cannot be dropped in place, so the table is copied
 * into today's shape (same positions, ids, revisions and texts; stream_key computed by
 * STREAM_KEY_FUNCTION) and swapped in, all in one transaction: a crash leaves the old table.
 * Takes the write lock, so another process appending meanwhile waits (busy timeout).
 */
export function migrateToStreamKeys(db: Database): void {
  db.transaction(() => {
    const columns = db.prepare("SELECT name FROM pragma_table_info('events')").pluck().all() as string[];
    if (columns.length === 0 || columns.includes('stream_key')) return; // someone else got here first
    db.exec(`
      ${eventsTableSql('events_with_keys')}
      INSERT INTO events_with_keys (position, id, stream, revision, type, data, metadata, stream_key)
        SELECT position, id, stream, revision, type, data, metadata, ${STREAM_KEY_FUNCTION}(stream) FROM events ORDER BY position;
      DROP TABLE events;
      ALTER TABLE events_with_keys RENAME TO events;
      ${EVENTS_STREAM_INDEX_SQL}
    `);
  }).immediate();
}
