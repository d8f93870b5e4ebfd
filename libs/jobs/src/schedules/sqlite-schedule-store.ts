import type Database from 'better-sqlite3';
import { openOperationalDb } from '@strata/event-store/sqlite/operational-db';
import { Schedule } from './schedule';
import { ScheduleStore, SlotAdvance } from './schedule-store.port';

interface Row extends Omit<Schedule, 'enabled' | 'job_input'> {
  enabled: number;
  job_input: string;
}

const fromRow = (r: Row): Schedule => ({ ...r, enabled: r.enabled === 1, job_input: JSON.parse(r.job_input) });

/** Embedded default: schedules in `ops.db`; the slot compare-and-set is one UPDATE … WHERE. */
export class SqliteScheduleStore implements ScheduleStore {
  private readonly db: Database.Database;

  /** `file`: a path, or ':memory:' */
  constructor(file: string) {
    this.db = openOperationalDb(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS schedules (
        id TEXT PRIMARY KEY, org TEXT NOT NULL, cron TEXT, interval_s INTEGER, timezone TEXT NOT NULL,
        enabled INTEGER NOT NULL, next_run_at REAL, last_slot REAL, job_kind TEXT NOT NULL, job_input TEXT NOT NULL,
        created_at REAL NOT NULL, updated_at REAL NOT NULL
      );
      CREATE INDEX IF NOT EXISTS schedules_due ON schedules(enabled, next_run_at);
      CREATE INDEX IF NOT EXISTS schedules_org ON schedules(org, created_at);
    `);
  }

  async save(s: Schedule): Promise<void> {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO schedules(id, org, cron, interval_s, timezone, enabled, next_run_at, last_slot, job_kind, job_input, created_at, updated_at)
         VALUES (?,?,?,?,?,?,?,?,?,?,?,?)`,
      )
      .run(s.id, s.org, s.cron, s.interval_s, s.timezone, s.enabled ? 1 : 0, s.next_run_at, s.last_slot, s.job_kind, JSON.stringify(s.job_input ?? null), s.created_at, s.updated_at);
  }

  async get(org: string, id: string): Promise<Schedule | null> {
    const row = this.db.prepare('SELECT * FROM schedules WHERE id = ? AND org = ?').get(id, org) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  async list(org: string): Promise<Schedule[]> {
    return (this.db.prepare('SELECT * FROM schedules WHERE org = ? ORDER BY created_at, id').all(org) as Row[]).map(fromRow);
  }

  async remove(org: string, id: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM schedules WHERE id = ? AND org = ?').run(id, org).changes === 1;
  }

  async due(now: number, limit: number): Promise<Schedule[]> {
    const rows = this.db
      .prepare('SELECT * FROM schedules WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id LIMIT ?')
      .all(now, limit) as Row[];
    return rows.map(fromRow);
  }

  async advance(id: string, change: SlotAdvance, now: number): Promise<boolean> {
    const { expected, next } = change;
    return (
      this.db
        .prepare('UPDATE schedules SET last_slot = ?, next_run_at = ?, updated_at = ? WHERE id = ? AND enabled = 1 AND last_slot IS ? AND next_run_at IS ?')
        .run(next.last_slot, next.next_run_at, now, id, expected.last_slot, expected.next_run_at).changes === 1
    );
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
