import type { Database, Statement } from 'better-sqlite3';
import { BriefingChannel, BriefingRun, BriefingSchedule, BriefingStatus, Correction, ItemMemory, ProjectRole, StoredBriefVersion } from '@strata/domain/briefs';
import { prepared } from '../sqlite/prepared';

/** A schedule with what the read model keeps beside it (never shown as such). */
export interface BriefingScheduleRow {
  org_id: string;
  schedule: BriefingSchedule;
  /** the schedule stream's revision, for the next append's expected revision */
  revision: number;
  last_delivered_version: number | null;
  /** the rotated-out secret signs until then (Unix seconds) */
  previous_secret_until: number | null;
}

/** A schedule whose most recent finished runs all failed, with their errors (newest first). */
export interface FailingBriefingSchedule {
  schedule: BriefingSchedule;
  runs: { run_id: string; completed_at: number; error: { code: string; message: string } | null }[];
}

type ScheduleDbRow = { org_id: string; record: string; revision: number; last_delivered_version: number | null; previous_secret_until: number | null };
const rowOf = (r: ScheduleDbRow): BriefingScheduleRow => ({
  org_id: r.org_id,
  schedule: JSON.parse(r.record),
  revision: r.revision,
  last_delivered_version: r.last_delivered_version,
  previous_secret_until: r.previous_secret_until,
});
const SCHEDULE_COLS = 'org_id, record, revision, last_delivered_version, previous_secret_until';

export interface ProjectGrantRow {
  project_uid: string;
  principal_uid: string;
  role: ProjectRole;
  granted_by: string;
  granted_at: number;
  updated_at: number;
}

export interface BriefHead {
  current_version: number | null;
  last_error: { code: string; message: string; at: number } | null;
  /** the brief stream's revision (null: no stream yet), for the next append's expected revision */
  revision: number | null;
}

/** Reads of the briefs projection (the same tables on the embedded store and in a replica's mirror). */
export class BriefsReadModel {
  private readonly stmts = new Map<string, Statement>();

  constructor(private readonly db: Database) {}

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  head(org: string, projectUid: string): BriefHead {
    const r = this.stmt('SELECT current_version, last_error, revision FROM brief_projects WHERE org_id = ? AND project_uid = ?').get(org, projectUid) as
      | { current_version: number | null; last_error: string | null; revision: number }
      | undefined;
    return { current_version: r?.current_version ?? null, last_error: r?.last_error ? JSON.parse(r.last_error) : null, revision: r ? r.revision : null };
  }

  version(org: string, projectUid: string, version: number): StoredBriefVersion | null {
    const r = this.stmt('SELECT record FROM brief_versions WHERE org_id = ? AND project_uid = ? AND version = ?').get(org, projectUid, version) as { record: string } | undefined;
    return r ? JSON.parse(r.record) : null;
  }

  current(org: string, projectUid: string): StoredBriefVersion | null {
    const v = this.head(org, projectUid).current_version;
    return v === null ? null : this.version(org, projectUid, v);
  }

  /** Newest first. */
  history(org: string, projectUid: string, limit: number, offset: number): { items: StoredBriefVersion[]; has_more: boolean } {
    const rows = this.stmt('SELECT record FROM brief_versions WHERE org_id = ? AND project_uid = ? ORDER BY version DESC LIMIT ? OFFSET ?').all(org, projectUid, limit + 1, offset) as { record: string }[];
    return { items: rows.slice(0, limit).map((r) => JSON.parse(r.record)), has_more: rows.length > limit };
  }

  itemMemory(org: string, projectUid: string): Map<string, ItemMemory> {
    const rows = this.stmt('SELECT item_id, first_version, correction FROM brief_item_memory WHERE org_id = ? AND project_uid = ?').all(org, projectUid) as {
      item_id: string;
      first_version: number;
      correction: string | null;
    }[];
    return new Map(rows.map((r) => [r.item_id, { first_version: r.first_version, correction: r.correction ? (JSON.parse(r.correction) as Correction) : null }]));
  }

  grant(org: string, projectUid: string, principalUid: string): ProjectGrantRow | null {
    return (
      (this.stmt('SELECT project_uid, principal_uid, role, granted_by, granted_at, updated_at FROM brief_project_grants WHERE org_id = ? AND project_uid = ? AND principal_uid = ?').get(
        org,
        projectUid,
        principalUid,
      ) as ProjectGrantRow | undefined) ?? null
    );
  }

  /** `granted_at` asc (then log position). */
  grants(org: string, projectUid: string, limit: number, offset: number): { items: ProjectGrantRow[]; has_more: boolean } {
    const rows = this.stmt(
      'SELECT project_uid, principal_uid, role, granted_by, granted_at, updated_at FROM brief_project_grants WHERE org_id = ? AND project_uid = ? ORDER BY granted_at, position LIMIT ? OFFSET ?',
    ).all(org, projectUid, limit + 1, offset) as ProjectGrantRow[];
    return { items: rows.slice(0, limit), has_more: rows.length > limit };
  }

  /** Every Project grant the principal holds, `granted_at` asc: an agent's scope (§13.3), a leaving member's grants (§12.8). */
  grantsHeldBy(org: string, principalUid: string): ProjectGrantRow[] {
    return this.stmt(
      'SELECT project_uid, principal_uid, role, granted_by, granted_at, updated_at FROM brief_project_grants WHERE org_id = ? AND principal_uid = ? ORDER BY granted_at, position',
    ).all(org, principalUid) as ProjectGrantRow[];
  }

  /** Whether the principal holds a grant on any Project (an agent with one is no longer unrestricted). */
  hasAnyGrant(org: string, principalUid: string): boolean {
    return this.stmt('SELECT 1 FROM brief_project_grants WHERE org_id = ? AND principal_uid = ? LIMIT 1').get(org, principalUid) !== undefined;
  }

  // ---- briefing schedules (REFERENCE §12.7)

  schedule(org: string, id: string): BriefingScheduleRow | null {
    const r = this.stmt(`SELECT ${SCHEDULE_COLS} FROM briefing_schedules WHERE org_id = ? AND id = ?`).get(org, id) as ScheduleDbRow | undefined;
    return r ? rowOf(r) : null;
  }

  scheduleByKey(org: string, projectUid: string, channel: BriefingChannel, recipient: string): BriefingScheduleRow | null {
    const r = this.stmt(`SELECT ${SCHEDULE_COLS} FROM briefing_schedules WHERE org_id = ? AND project_uid = ? AND channel = ? AND recipient = ?`).get(org, projectUid, channel, recipient) as
      | ScheduleDbRow
      | undefined;
    return r ? rowOf(r) : null;
  }

  scheduleCount(org: string, projectUid: string): number {
    return (this.stmt('SELECT COUNT(*) AS n FROM briefing_schedules WHERE org_id = ? AND project_uid = ?').get(org, projectUid) as { n: number }).n;
  }

  /** The organization's schedules under the filters, `created_at` asc then id. */
  schedules(org: string, filter: { project_uid?: string; channel?: BriefingChannel; status?: BriefingStatus } = {}): BriefingSchedule[] {
    const rows = this.stmt(
      `SELECT record FROM briefing_schedules WHERE org_id = ? AND (? IS NULL OR project_uid = ?) AND (? IS NULL OR channel = ?) AND (? IS NULL OR status = ?) ORDER BY created_at, id`,
    ).all(org, filter.project_uid ?? null, filter.project_uid ?? null, filter.channel ?? null, filter.channel ?? null, filter.status ?? null, filter.status ?? null) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record));
  }

  /** Active schedules due at `now`, every organization, soonest first. */
  dueSchedules(now: number, limit = 100): BriefingScheduleRow[] {
    const rows = this.stmt(`SELECT ${SCHEDULE_COLS} FROM briefing_schedules WHERE status = 'active' AND next_run_at IS NOT NULL AND next_run_at <= ? ORDER BY next_run_at, id LIMIT ?`).all(now, limit) as ScheduleDbRow[];
    return rows.map(rowOf);
  }

  /** Runs waiting for a delivery retry that is due, every organization. */
  dueAttempts(now: number, limit = 100): { org_id: string; run: BriefingRun }[] {
    const rows = this.stmt(`SELECT org_id, record FROM briefing_runs WHERE status = 'running' AND next_attempt_at IS NOT NULL AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT ?`).all(now, limit) as {
      org_id: string;
      record: string;
    }[];
    return rows.map((r) => ({ org_id: r.org_id, run: JSON.parse(r.record) }));
  }

  /** Runs queued and not yet started, every organization, oldest first. */
  pendingRuns(limit = 100): { org_id: string; run: BriefingRun }[] {
    const rows = this.stmt("SELECT org_id, record FROM briefing_runs WHERE status = 'pending' ORDER BY seq LIMIT ?").all(limit) as { org_id: string; record: string }[];
    return rows.map((r) => ({ org_id: r.org_id, run: JSON.parse(r.record) }));
  }

  /** Newest first (at most the 50 the read model keeps). */
  runs(org: string, scheduleId: string, limit = 50): BriefingRun[] {
    const rows = this.stmt('SELECT record FROM briefing_runs WHERE org_id = ? AND schedule_id = ? ORDER BY seq DESC LIMIT ?').all(org, scheduleId, limit) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record));
  }

  run(org: string, runId: string): BriefingRun | null {
    const r = this.stmt('SELECT record FROM briefing_runs WHERE org_id = ? AND id = ?').get(org, runId) as { record: string } | undefined;
    return r ? JSON.parse(r.record) : null;
  }

  /** The schedule's pending or running run, if any. */
  activeRun(org: string, scheduleId: string): BriefingRun | null {
    const r = this.stmt("SELECT record FROM briefing_runs WHERE org_id = ? AND schedule_id = ? AND status IN ('pending', 'running') ORDER BY seq DESC LIMIT 1").get(org, scheduleId) as
      | { record: string }
      | undefined;
    return r ? JSON.parse(r.record) : null;
  }

  /** The schedule's `n` most recent finished runs (delivered, skipped or failed), newest first. */
  recentFinishedRuns(org: string, scheduleId: string, n: number): BriefingRun[] {
    const rows = this.stmt("SELECT record FROM briefing_runs WHERE org_id = ? AND schedule_id = ? AND status IN ('delivered', 'skipped', 'failed') ORDER BY completed_at DESC, seq DESC LIMIT ?").all(
      org,
      scheduleId,
      n,
    ) as { record: string }[];
    return rows.map((r) => JSON.parse(r.record));
  }

  /**
   * Schedules whose `n` (default 3) most recent finished runs all failed, with those runs' errors,
   * newest first: what Knowledge Health reports as a failing briefing.
   */
  failingSchedules(org: string, n = 3): FailingBriefingSchedule[] {
    const out: FailingBriefingSchedule[] = [];
    for (const s of this.schedules(org)) {
      const runs = this.recentFinishedRuns(org, s.id, n);
      if (runs.length === n && runs.every((r) => r.status === 'failed'))
        out.push({ schedule: s, runs: runs.map((r) => ({ run_id: r.id, completed_at: r.completed_at!, error: r.error })) });
    }
    return out;
  }
}
