import type Database from 'better-sqlite3';
import { openOperationalDb } from '@strata/event-store/sqlite/operational-db';
import { JobRecord } from '@strata/domain/jobs';
import { JobStore, StoredJob } from './job-store.port';

/** Embedded default: job records in `ops.db` beside the data, one JSON document per job. */
export class SqliteJobStore implements JobStore {
  private readonly db: Database.Database;
  private readonly stmts: Record<'save' | 'get' | 'ofOrg' | 'active' | 'removeOrg' | 'removeFinished', Database.Statement>;

  /** `file`: a path, or ':memory:' */
  constructor(file: string) {
    this.db = openOperationalDb(file);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS jobs (
        id TEXT PRIMARY KEY, org TEXT NOT NULL, status TEXT NOT NULL, completed_at REAL, doc TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS jobs_org ON jobs(org);
    `);
    this.stmts = {
      save: this.db.prepare(
        `INSERT INTO jobs(id, org, status, completed_at, doc) VALUES (?,?,?,?,?)
         ON CONFLICT(id) DO UPDATE SET org = excluded.org, status = excluded.status, completed_at = excluded.completed_at, doc = excluded.doc`,
      ),
      get: this.db.prepare('SELECT doc FROM jobs WHERE id = ? AND org = ?').pluck(),
      ofOrg: this.db.prepare('SELECT doc FROM jobs WHERE org = ?').pluck(),
      active: this.db.prepare("SELECT org, doc FROM jobs WHERE status IN ('pending', 'processing')"),
      removeOrg: this.db.prepare('DELETE FROM jobs WHERE org = ?'),
      removeFinished: this.db.prepare('DELETE FROM jobs WHERE completed_at IS NOT NULL AND completed_at < ?'),
    };
  }

  async save(org: string, job: JobRecord): Promise<void> {
    this.stmts.save.run(job.id, org, job.status, job.completed_at, JSON.stringify(job));
  }

  async get(org: string, id: string): Promise<JobRecord | null> {
    const doc = this.stmts.get.get(id, org) as string | undefined;
    return doc === undefined ? null : (JSON.parse(doc) as JobRecord);
  }

  async ofOrg(org: string): Promise<JobRecord[]> {
    return (this.stmts.ofOrg.all(org) as string[]).map((d) => JSON.parse(d) as JobRecord);
  }

  async active(): Promise<StoredJob[]> {
    return (this.stmts.active.all() as { org: string; doc: string }[]).map((r) => ({ org: r.org, job: JSON.parse(r.doc) as JobRecord }));
  }

  async removeOrg(org: string): Promise<void> {
    this.stmts.removeOrg.run(org);
  }

  async removeFinishedBefore(cutoff: number): Promise<void> {
    this.stmts.removeFinished.run(cutoff);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
