import type { Database, Statement } from 'better-sqlite3';

export interface Checkpoint {
  name: string;
  version: number;
  position: number;
  last_error: string | null;
}

/** Checkpoints live in the projections database, written in the same transaction as the data. */
export class CheckpointStore {
  // prepared once: the unit of work writes every checkpoint on each commit
  private readonly getStmt: Statement;
  private readonly setStmt: Statement;

  constructor(private readonly db: Database) {
    db.exec(`CREATE TABLE IF NOT EXISTS checkpoints (
      name TEXT PRIMARY KEY, version INTEGER NOT NULL, position INTEGER NOT NULL, last_error TEXT
    )`);
    this.getStmt = db.prepare('SELECT name, version, position, last_error FROM checkpoints WHERE name = ?');
    this.setStmt = db.prepare(
      `INSERT INTO checkpoints(name, version, position, last_error) VALUES (?,?,?,NULL)
       ON CONFLICT(name) DO UPDATE SET version = excluded.version, position = excluded.position, last_error = NULL`,
    );
  }
  get(name: string): Checkpoint | null {
    return (this.getStmt.get(name) as Checkpoint) ?? null;
  }
  all(): Checkpoint[] {
    return this.db.prepare('SELECT name, version, position, last_error FROM checkpoints ORDER BY name').all() as Checkpoint[];
  }
  set(name: string, version: number, position: number): void {
    this.setStmt.run(name, version, position);
  }
  setError(name: string, error: string): void {
    this.db.prepare('UPDATE checkpoints SET last_error = ? WHERE name = ?').run(error, name);
  }
}
