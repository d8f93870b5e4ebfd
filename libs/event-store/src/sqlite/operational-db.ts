import Database from 'better-sqlite3';

/**
 * Opens a SQLite file of operational data (`ops.db`: request activity, job records), not
 * events: WAL so the service's reads never wait on a write, no fsync per commit (a power cut
 * costs at most the last counters and job updates), and a short busy timeout, since a CLI
 * command may open the same file. `file`: a path, or ':memory:'.
 */
export function openOperationalDb(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 2000');
  return db;
}
