import type { Database } from 'better-sqlite3';

/**
 * Settings for filling an empty projections database that nobody reads yet (a rebuild beside
 * the live one, a verify scratch copy): no WAL and no fsync (a crash only loses a file that is
 * rebuilt anyway), a large page cache, and the secondary indexes of `deferrable` tables
 * dropped, to be created in one sorted pass at the end. Returns the function that restores
 * the indexes and the normal settings.
 */
export function beginBulkLoad(db: Database, deferrable: readonly string[]): () => void {
  const list = deferrable.map((t) => `'${t.replace(/'/g, "''")}'`).join(', ');
  const indexes = deferrable.length
    ? (db.prepare(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL AND tbl_name IN (${list})`).all() as { name: string; sql: string }[])
    : [];
  const cache = db.pragma('main.cache_size', { simple: true }) as number;
  // main only: a bare journal_mode pragma would also switch the TEMP database (the text
  // index keeps a scratch table there), which then cannot go back to WAL
  db.pragma('main.journal_mode = MEMORY');
  db.pragma('main.synchronous = OFF');
  db.pragma('main.cache_size = -262144');
  for (const i of indexes) db.exec(`DROP INDEX "${i.name.replace(/"/g, '""')}"`);
  let done = false;
  return () => {
    if (done) return;
    done = true;
    db.transaction(() => indexes.forEach((i) => db.exec(i.sql)))();
    db.pragma(`main.cache_size = ${cache}`);
    db.pragma('main.journal_mode = WAL');
    db.pragma('main.synchronous = NORMAL');
  };
}
