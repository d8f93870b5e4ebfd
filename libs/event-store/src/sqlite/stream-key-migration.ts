import type { Database } from 'better-sqlite3';
import { EVENTS_STREAM_INDEX_SQL, eventsTableSql } from './events-table';

/** SQL function (registered on every log connection) that computes a stream's index key. */
export const STREAM_KEY_FUNCTION = 'strata_stream_key';

/**
 * The log file's `user_version` once its stream keys are today's (time slots, see
 * stream-key.ts). Below it, a log with a stream_key column has the keys of hashedStreamKey.
 */
export const STREAM_KEY_SCHEME = 2;

/** the stream-key scheme of a log file (its `user_version`) */
export function streamKeyScheme(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

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
      PRAGMA user_version = ${STREAM_KEY_SCHEME};
    `);
  }).immediate();
}

/**
 * Brings the stream keys of a log with a stream_key column to today's scheme: every key is
 * computed again by STREAM_KEY_FUNCTION (rows whose key stays are not rewritten) and the index
 * rebuilt in key order, in one transaction (a crash leaves the old keys and index), after
 * which the file's `user_version` says so and later opens find nothing to do. Positions, ids,
 * revisions and texts are untouched. An empty log (a fresh one) is only marked.
 */
export function rekeyStreams(db: Database): void {
  db.transaction(() => {
    if (streamKeyScheme(db) >= STREAM_KEY_SCHEME) return; // someone else got here first
    db.exec(`
      DROP INDEX IF EXISTS events_stream;
      UPDATE events SET stream_key = ${STREAM_KEY_FUNCTION}(stream) WHERE stream_key <> ${STREAM_KEY_FUNCTION}(stream);
      ${EVENTS_STREAM_INDEX_SQL}
      PRAGMA user_version = ${STREAM_KEY_SCHEME};
    `);
  }).immediate();
}
