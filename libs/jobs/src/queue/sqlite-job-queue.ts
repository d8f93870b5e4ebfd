import type Database from 'better-sqlite3';
import { openOperationalDb } from '@strata/event-store/sqlite/operational-db';
import { Clock, IdGenerator } from '@strata/domain/time';
import { EnqueueRequest, JobQueue, LeaseState, QueueActivity, QueuedJob, QueuedJobStatus } from './job-queue.port';

interface Row {
  id: string;
  org: string;
  kind: string;
  status: QueuedJobStatus;
  input: string;
  dedupe_key: string | null;
  serial_group: string | null;
  attempts: number;
  owner: string | null;
  lease_until: number | null;
  cancel_requested: number;
  progress: string;
  checkpoint: string;
  result: string;
  error: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

const json = (v: unknown) => JSON.stringify(v ?? null);

function fromRow(r: Row): QueuedJob {
  const job = {
    ...r,
    cancel_requested: r.cancel_requested === 1,
    input: JSON.parse(r.input),
    progress: JSON.parse(r.progress),
    result: JSON.parse(r.result),
  } as QueuedJob;
  // the checkpoint (a handler's whole cursor, tens of KB for an ingestion) is parsed only when
  // read: `GET /jobs/{id}`, its polls and a cancel check never look at it
  let raw: string | null = r.checkpoint;
  let value: unknown;
  Object.defineProperty(job, 'checkpoint', {
    enumerable: true,
    configurable: true,
    get: () => {
      if (raw !== null) (value = JSON.parse(raw)), (raw = null);
      return value;
    },
    set: (v: unknown) => {
      raw = null;
      value = v;
    },
  });
  return job;
}

/**
 * Embedded default: the job queue in `ops.db`. A claim is one IMMEDIATE transaction (select
 * the oldest runnable job, take it), so two processes on the same file (the service and a CLI
 * command) never take the same job. Writes by a runner apply only while it holds the job.
 */
export class SqliteJobQueue implements JobQueue {
  private readonly db: Database.Database;
  private readonly held = "id = ? AND owner = ? AND status = 'running'";
  /** prepared once: a claim's statement took longer to prepare than to run */
  private readonly stmts = new Map<string, Database.Statement>();

  /** `file`: a path, or ':memory:' */
  constructor(
    file: string,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.db = openOperationalDb(file);
    SqliteJobQueue.migrate(this.db);
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS queued_jobs (
        id TEXT PRIMARY KEY, org TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
        input TEXT NOT NULL, dedupe_key TEXT, serial_group TEXT, attempts INTEGER NOT NULL DEFAULT 0,
        owner TEXT, lease_until REAL, cancel_requested INTEGER NOT NULL DEFAULT 0,
        progress TEXT NOT NULL, checkpoint TEXT NOT NULL, result TEXT NOT NULL, error TEXT,
        created_at REAL NOT NULL, updated_at REAL NOT NULL, started_at REAL, finished_at REAL
      );
      CREATE INDEX IF NOT EXISTS queued_jobs_runnable ON queued_jobs(status, kind, created_at);
      CREATE INDEX IF NOT EXISTS queued_jobs_org ON queued_jobs(org, created_at);
      CREATE INDEX IF NOT EXISTS queued_jobs_serial ON queued_jobs(org, serial_group, status) WHERE serial_group IS NOT NULL;
      -- a job's payload lives apart, so that reading a job never parses it
      CREATE TABLE IF NOT EXISTS queued_job_payloads (id TEXT PRIMARY KEY, payload TEXT NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS queued_jobs_dedupe ON queued_jobs(org, kind, dedupe_key)
        WHERE dedupe_key IS NOT NULL AND status IN ('pending', 'running');
    `);
  }

  private q(sql: string): Database.Statement {
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
  }

  /** ops.db files written before serial groups existed gain the column (and its index) on open. */
  private static migrate(db: Database.Database): void {
    const cols = db.prepare('PRAGMA table_info(queued_jobs)').all() as { name: string }[];
    if (cols.length && !cols.some((c) => c.name === 'serial_group')) db.exec('ALTER TABLE queued_jobs ADD COLUMN serial_group TEXT');
  }

  async enqueue(req: EnqueueRequest): Promise<{ job: QueuedJob; created: boolean }> {
    return this.db.transaction(() => {
      const { job, created } = this.insertJob(req, null);
      return { job, created };
    }).immediate();
  }

  async enqueueClaimed(req: EnqueueRequest, owner: string, leaseSeconds: number): Promise<{ job: QueuedJob; created: boolean; claimed: boolean }> {
    return this.db.transaction(() => this.insertJob(req, { owner, leaseSeconds })).immediate();
  }

  /** Inside the caller's transaction: the job as the queue holds it after the enqueue, running and leased to `claim` when it may start now. */
  private insertJob(req: EnqueueRequest, claim: { owner: string; leaseSeconds: number } | null): { job: QueuedJob; created: boolean; claimed: boolean } {
    if (req.dedupeKey !== undefined) {
      const same = this.q("SELECT * FROM queued_jobs WHERE org = ? AND kind = ? AND dedupe_key = ? AND status IN ('pending', 'running')")
        .get(req.org, req.kind, req.dedupeKey) as Row | undefined;
      if (same) return { job: fromRow(same), created: false, claimed: false };
    }
    // every job of the group already there is older than this one: any active one goes first
    const waits =
      claim === null ||
      (req.serialGroup !== undefined &&
        this.q("SELECT 1 FROM queued_jobs WHERE org = ? AND serial_group = ? AND status IN ('pending', 'running') LIMIT 1").get(req.org, req.serialGroup) !== undefined);
    const now = this.clock.now();
    // the row as written, every column: the job handed back is made from it, not read again
    const row: Row = {
      id: req.id ?? this.ids.uuid(), org: req.org, kind: req.kind, status: waits ? 'pending' : 'running', input: json(req.input),
      dedupe_key: req.dedupeKey ?? null, serial_group: req.serialGroup ?? null, attempts: waits ? 0 : 1, owner: waits ? null : claim.owner,
      lease_until: waits ? null : now + claim.leaseSeconds, cancel_requested: 0, progress: json(req.progress), checkpoint: 'null', result: 'null',
      error: null, created_at: now, updated_at: now, started_at: waits ? null : now, finished_at: null,
    };
    this.q(
        `INSERT INTO queued_jobs(id, org, kind, status, input, dedupe_key, serial_group, attempts, owner, lease_until, progress, checkpoint, result, created_at, updated_at, started_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'null', 'null', ?, ?, ?)`,
      )
      .run(row.id, row.org, row.kind, row.status, row.input, row.dedupe_key, row.serial_group, row.attempts, row.owner, row.lease_until, row.progress, now, now, row.started_at);
    if (req.payload !== undefined) this.q('INSERT INTO queued_job_payloads(id, payload) VALUES (?, ?)').run(row.id, req.payload);
    return { job: fromRow(row), created: true, claimed: !waits };
  }

  async claim(kinds: readonly string[], owner: string, leaseSeconds: number): Promise<QueuedJob | null> {
    if (kinds.length === 0) return null;
    const now = this.clock.now();
    return this.db.transaction(() => {
      const marks = kinds.map(() => '?').join(',');
      const id = this.q(
          `SELECT id FROM queued_jobs q WHERE kind IN (${marks})
             AND (status = 'pending' OR (status = 'running' AND lease_until <= ?))
             AND (serial_group IS NULL OR NOT EXISTS (
               SELECT 1 FROM queued_jobs o WHERE o.org = q.org AND o.serial_group = q.serial_group
                 AND o.status IN ('pending', 'running') AND (o.created_at < q.created_at OR (o.created_at = q.created_at AND o.rowid < q.rowid))))
           ORDER BY created_at, rowid LIMIT 1`,
        )
        .pluck()
        .get(...kinds, now) as string | undefined;
      if (id === undefined) return null;
      this.q(
          `UPDATE queued_jobs SET status = 'running', owner = ?, lease_until = ?, attempts = attempts + 1,
             started_at = COALESCE(started_at, ?), updated_at = ? WHERE id = ?`,
        )
        .run(owner, now + leaseSeconds, now, now, id);
      return this.byId(id);
    }).immediate();
  }

  async renew(id: string, owner: string, leaseSeconds: number): Promise<LeaseState> {
    const now = this.clock.now();
    const changed = this.q(`UPDATE queued_jobs SET lease_until = ?, updated_at = ? WHERE ${this.held}`)
      .run(now + leaseSeconds, now, id, owner).changes;
    if (changed === 0) return 'lost';
    const flagged = this.q('SELECT cancel_requested FROM queued_jobs WHERE id = ?').pluck().get(id) as number;
    return flagged === 1 ? 'cancel_requested' : 'held';
  }

  async progress(id: string, owner: string, progress: unknown, checkpoint?: unknown): Promise<boolean> {
    const now = this.clock.now();
    const sql =
      checkpoint === undefined
        ? `UPDATE queued_jobs SET progress = ?, updated_at = ? WHERE ${this.held}`
        : `UPDATE queued_jobs SET progress = ?, checkpoint = ?, updated_at = ? WHERE ${this.held}`;
    const args = checkpoint === undefined ? [json(progress), now, id, owner] : [json(progress), json(checkpoint), now, id, owner];
    return this.q(sql).run(...args).changes === 1;
  }

  async complete(id: string, owner: string, result: unknown): Promise<boolean> {
    return this.finish(id, owner, 'completed', json(result), null);
  }

  async fail(id: string, owner: string, error: string): Promise<boolean> {
    return this.finish(id, owner, 'failed', 'null', error);
  }

  async acknowledgeCancel(id: string, owner: string): Promise<boolean> {
    return this.finish(id, owner, 'cancelled', 'null', null);
  }

  async release(id: string, owner: string): Promise<boolean> {
    const now = this.clock.now();
    return (
      this.q(`UPDATE queued_jobs SET status = 'pending', owner = NULL, lease_until = NULL, updated_at = ? WHERE ${this.held}`)
        .run(now, id, owner).changes === 1
    );
  }

  async requestCancel(org: string, id: string): Promise<QueuedJob | null> {
    const now = this.clock.now();
    return this.db.transaction(() => {
      this.q("UPDATE queued_jobs SET status = 'cancelled', finished_at = ?, updated_at = ? WHERE id = ? AND org = ? AND status = 'pending'")
        .run(now, now, id, org);
      this.q("DELETE FROM queued_job_payloads WHERE id = ? AND EXISTS (SELECT 1 FROM queued_jobs WHERE id = ? AND status = 'cancelled')").run(id, id);
      this.q("UPDATE queued_jobs SET cancel_requested = 1, updated_at = ? WHERE id = ? AND org = ? AND status = 'running'")
        .run(now, id, org);
      const row = this.q('SELECT * FROM queued_jobs WHERE id = ? AND org = ?').get(id, org) as Row | undefined;
      return row ? fromRow(row) : null;
    }).immediate();
  }

  async get(org: string, id: string): Promise<QueuedJob | null> {
    const row = this.q('SELECT * FROM queued_jobs WHERE id = ? AND org = ?').get(id, org) as Row | undefined;
    return row ? fromRow(row) : null;
  }

  async activity(): Promise<QueueActivity[]> {
    // the (status, kind, created_at) index answers this without reading finished jobs
    return this.q(
        "SELECT kind, status, COUNT(*) AS count, MIN(created_at) AS oldest_created_at FROM queued_jobs WHERE status IN ('pending', 'running') GROUP BY status, kind",
      )
      .all() as QueueActivity[];
  }

  async payload(id: string): Promise<string | null> {
    return (this.q('SELECT payload FROM queued_job_payloads WHERE id = ?').pluck().get(id) as string | undefined) ?? null;
  }

  async list(org: string, filter: { kind?: string; status?: QueuedJobStatus } = {}): Promise<QueuedJob[]> {
    const rows = this.q('SELECT * FROM queued_jobs WHERE org = ? AND (? IS NULL OR kind = ?) AND (? IS NULL OR status = ?) ORDER BY created_at, rowid')
      .all(org, filter.kind ?? null, filter.kind ?? null, filter.status ?? null, filter.status ?? null) as Row[];
    return rows.map(fromRow);
  }

  async removeFinishedBefore(cutoff: number): Promise<number> {
    return this.db.transaction(() => {
      this.q('DELETE FROM queued_job_payloads WHERE id IN (SELECT id FROM queued_jobs WHERE finished_at IS NOT NULL AND finished_at < ?)').run(cutoff);
      return this.q('DELETE FROM queued_jobs WHERE finished_at IS NOT NULL AND finished_at < ?').run(cutoff).changes;
    }).immediate();
  }

  async removeFinishedOf(org: string, kinds: readonly string[]): Promise<number> {
    if (kinds.length === 0) return 0;
    const marks = kinds.map(() => '?').join(',');
    const which = `org = ? AND kind IN (${marks}) AND finished_at IS NOT NULL`;
    return this.db.transaction(() => {
      this.q(`DELETE FROM queued_job_payloads WHERE id IN (SELECT id FROM queued_jobs WHERE ${which})`).run(org, ...kinds);
      return this.q(`DELETE FROM queued_jobs WHERE ${which}`).run(org, ...kinds).changes;
    }).immediate();
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  private finish(id: string, owner: string, status: QueuedJobStatus, result: string, error: string | null): boolean {
    const now = this.clock.now();
    return this.db.transaction(() => {
      const done =
        this.q(
            `UPDATE queued_jobs SET status = ?, result = ?, error = ?, owner = NULL, lease_until = NULL, finished_at = ?, updated_at = ?
             WHERE ${this.held}`,
          )
          .run(status, result, error, now, now, id, owner).changes === 1;
      // a finished job is never run again: its payload is dead weight
      if (done) this.q('DELETE FROM queued_job_payloads WHERE id = ?').run(id);
      return done;
    }).immediate();
  }

  private byId(id: string): QueuedJob | null {
    const row = this.q('SELECT * FROM queued_jobs WHERE id = ?').get(id) as Row | undefined;
    return row ? fromRow(row) : null;
  }
}
