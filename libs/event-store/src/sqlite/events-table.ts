/**
 * The SQLite log's events table (today's shape), under a given name: created by the store and
 * by the migration that copies older logs into it.
 */
export function eventsTableSql(name: string, ifNotExists = false): string {
  return `
    CREATE TABLE ${ifNotExists ? 'IF NOT EXISTS ' : ''}${name} (
      position   INTEGER PRIMARY KEY,
      id         TEXT    NOT NULL,
      stream     TEXT    NOT NULL,
      revision   INTEGER NOT NULL,
      type       TEXT    NOT NULL,
      data       TEXT    NOT NULL,
      metadata   TEXT    NOT NULL,
      stream_key INTEGER NOT NULL
    );`;
}

/** The stream index: stream reads, revision checks and family listings (see stream-key.ts). */
export const EVENTS_STREAM_INDEX_SQL = 'CREATE INDEX IF NOT EXISTS events_stream ON events(stream_key, revision);';
