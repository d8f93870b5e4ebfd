import type { Database } from 'better-sqlite3';

/**
 * Names of the streams in the SQLite log that start with `prefix`, found by a range scan of
 * the (stream, revision) index: [prefix, prefix with its last character bumped).
 */
export function streamsWithPrefixSync(db: Database, prefix: string): string[] {
  if (!prefix) throw new Error('streamsWithPrefixSync needs a non-empty prefix');
  const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return db.prepare('SELECT DISTINCT stream FROM events WHERE stream >= ? AND stream < ? ORDER BY stream').pluck().all(prefix, upper) as string[];
}
