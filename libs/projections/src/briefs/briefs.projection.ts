import type { Database, Statement } from 'better-sqlite3';
import { BriefEventTypes as T, BriefingRun, BriefingSchedule, BriefingScheduleSettings } from '@strata/domain/briefs';
import { RecordedEvent, isBriefEvent, unhandled } from '@strata/domain/events';
import { EmbeddedProjection } from '../projection';
import { BRIEFS_DDL, BRIEFS_TABLES } from './briefs-schema';
import { prepared } from '../sqlite/prepared';

/** Runs kept per schedule in the read model (REFERENCE §12.7). */
export const KEPT_RUNS = 50;

function settingsOf(d: BriefingScheduleSettings): BriefingScheduleSettings {
  return {
    cron: d.cron, interval_secs: d.interval_secs, timezone: d.timezone, mode: d.mode, only_on_change: d.only_on_change,
    status: d.status, paused_reason: d.paused_reason, next_run_at: d.next_run_at, consecutive_failures: d.consecutive_failures,
  };
}

/**
 * The briefs read model (REFERENCE §12): each Project's versions (whole, as their events carry
 * them), its current version and last failed regeneration, what every item id remembers across
 * versions (first version, correction), Project grants, and briefing schedules with their 50
 * newest runs. Deterministic: only event data, so a
 * rebuild gives the same rows.
 */
export class BriefsProjection implements EmbeddedProjection {
  readonly name = 'briefs';
  readonly version = 1;
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {
    db.exec(BRIEFS_DDL);
  }

  private run(sql: string, ...params: unknown[]): void {
    prepared(this.stmts, this.db, sql).run(...params);
  }

  apply(e: RecordedEvent): void {
    if (!isBriefEvent(e)) return;
    switch (e.type) {
      case T.BriefVersionCreated: {
        const { org_id, ...v } = e.data;
        this.run('INSERT OR REPLACE INTO brief_versions(org_id, project_uid, version, created_at, record) VALUES (?,?,?,?,?)', org_id, v.project_uid, v.version, v.created_at, JSON.stringify(v));
        this.run(
          `INSERT INTO brief_projects(org_id, project_uid, current_version, last_error, revision) VALUES (?,?,?,NULL,?)
           ON CONFLICT(org_id, project_uid) DO UPDATE SET current_version = excluded.current_version, last_error = NULL, revision = excluded.revision`,
          org_id, v.project_uid, v.version, e.revision,
        );
        for (const i of v.items)
          this.run(
            `INSERT INTO brief_item_memory(org_id, project_uid, item_id, first_version, correction) VALUES (?,?,?,?,?)
             ON CONFLICT(org_id, project_uid, item_id) DO UPDATE SET correction = COALESCE(excluded.correction, brief_item_memory.correction)`,
            org_id, v.project_uid, i.id, i.first_version, i.correction ? JSON.stringify(i.correction) : null,
          );
        return;
      }
      case T.BriefRegenerationFailed: {
        const d = e.data;
        this.run(
          `INSERT INTO brief_projects(org_id, project_uid, current_version, last_error, revision) VALUES (?,?,NULL,?,?)
           ON CONFLICT(org_id, project_uid) DO UPDATE SET last_error = excluded.last_error, revision = excluded.revision`,
          d.org_id, d.project_uid, JSON.stringify({ code: d.code, message: d.message, at: d.at }), e.revision,
        );
        return;
      }
      case T.ProjectGrantSet: {
        const d = e.data;
        this.run(
          `INSERT INTO brief_project_grants(org_id, project_uid, principal_uid, role, granted_by, granted_at, updated_at, position) VALUES (?,?,?,?,?,?,?,?)
           ON CONFLICT(org_id, project_uid, principal_uid) DO UPDATE SET role = excluded.role, granted_by = excluded.granted_by, updated_at = excluded.updated_at`,
          d.org_id, d.project_uid, d.principal_uid, d.role, d.granted_by, d.at, d.at, e.position,
        );
        return;
      }
      case T.ProjectGrantRevoked: {
        const d = e.data;
        this.run('DELETE FROM brief_project_grants WHERE org_id = ? AND project_uid = ? AND principal_uid = ?', d.org_id, d.project_uid, d.principal_uid);
        return;
      }
      case T.BriefingScheduleCreated: {
        const d = e.data;
        const record: BriefingSchedule = {
          id: d.schedule_id, project_uid: d.project_uid, channel: d.channel, recipient: d.recipient,
          ...settingsOf(d), secret_hint: d.secret_hint, created_by: d.created_by, created_at: d.at, updated_at: d.at,
        };
        this.run(
          `INSERT OR REPLACE INTO briefing_schedules(org_id, id, project_uid, channel, recipient, status, next_run_at, created_at, record, revision, last_delivered_version, previous_secret_until)
           VALUES (?,?,?,?,?,?,?,?,?,?,NULL,NULL)`,
          d.org_id, d.schedule_id, d.project_uid, d.channel, d.recipient, record.status, record.next_run_at, d.at, JSON.stringify(record), e.revision,
        );
        return;
      }
      case T.BriefingScheduleReplaced:
      case T.BriefingScheduleUpdated:
        return this.updateSchedule(e.data.org_id, e.data.schedule_id, e.revision, (s) => ({ ...s, ...settingsOf(e.data), updated_at: e.data.at }));
      case T.BriefingSecretRotated: {
        const d = e.data;
        this.updateSchedule(d.org_id, d.schedule_id, e.revision, (s) => ({ ...s, secret_hint: d.secret_hint, updated_at: d.at }));
        this.run('UPDATE briefing_schedules SET previous_secret_until = ? WHERE org_id = ? AND id = ?', d.previous_valid_until, d.org_id, d.schedule_id);
        return;
      }
      case T.BriefingScheduleDeleted: {
        const d = e.data;
        this.run('DELETE FROM briefing_schedules WHERE org_id = ? AND id = ?', d.org_id, d.schedule_id);
        this.run('DELETE FROM briefing_runs WHERE org_id = ? AND schedule_id = ?', d.org_id, d.schedule_id);
        return;
      }
      case T.BriefingRunQueued: {
        const d = e.data;
        const run: BriefingRun = {
          id: d.run_id, schedule_id: d.schedule_id, trigger: d.trigger, status: 'pending', scheduled_for: d.scheduled_for, started_at: null, completed_at: null,
          brief_version: null, reused: null, material_change_count: 0, skip_reason: null, attempts: 0, error: null, http_status: null, next_attempt_at: null,
        };
        this.run('INSERT OR REPLACE INTO briefing_runs(org_id, id, schedule_id, seq, status, next_attempt_at, completed_at, record) VALUES (?,?,?,?,?,NULL,NULL,?)', d.org_id, d.run_id, d.schedule_id, e.position, 'pending', JSON.stringify(run));
        // the read model keeps the 50 newest runs of a schedule; older ones stay in the log
        this.run(
          `DELETE FROM briefing_runs WHERE org_id = ? AND schedule_id = ? AND seq < (
             SELECT MIN(seq) FROM (SELECT seq FROM briefing_runs WHERE org_id = ? AND schedule_id = ? ORDER BY seq DESC LIMIT ${KEPT_RUNS}))`,
          d.org_id, d.schedule_id, d.org_id, d.schedule_id,
        );
        return this.updateSchedule(d.org_id, d.schedule_id, e.revision, (s) => ({ ...s, next_run_at: d.next_run_at }));
      }
      case T.BriefingRunStarted: {
        const d = e.data;
        this.updateRun(d.org_id, d.run_id, (r) => ({ ...r, status: 'running', started_at: d.at }));
        return this.updateSchedule(d.org_id, d.schedule_id, e.revision, (s) => s);
      }
      case T.BriefingDeliveryAttempted: {
        const d = e.data;
        this.updateRun(d.org_id, d.run_id, (r) => ({
          ...r, attempts: d.attempt, http_status: d.http_status, error: d.error, next_attempt_at: d.next_attempt_at,
          brief_version: d.brief_version, reused: d.reused, material_change_count: d.material_change_count,
        }));
        return this.updateSchedule(d.org_id, d.schedule_id, e.revision, (s) => s);
      }
      case T.BriefingRunFinished: {
        const d = e.data;
        this.updateRun(d.org_id, d.run_id, (r) => ({
          ...r, status: d.status, completed_at: d.at, brief_version: d.brief_version, reused: d.reused, material_change_count: d.material_change_count,
          skip_reason: d.skip_reason, error: d.error ?? r.error, next_attempt_at: null,
        }));
        if (d.status === 'delivered') this.run('UPDATE briefing_schedules SET last_delivered_version = ? WHERE org_id = ? AND id = ?', d.brief_version, d.org_id, d.schedule_id);
        return this.updateSchedule(d.org_id, d.schedule_id, e.revision, (s) => ({ ...s, consecutive_failures: d.consecutive_failures }));
      }
      default:
        return unhandled(e);
    }
  }

  private updateSchedule(org: string, id: string, revision: number, change: (s: BriefingSchedule) => BriefingSchedule): void {
    const row = this.db.prepare('SELECT record FROM briefing_schedules WHERE org_id = ? AND id = ?').get(org, id) as { record: string } | undefined;
    if (!row) return;
    const s = change(JSON.parse(row.record) as BriefingSchedule);
    this.run('UPDATE briefing_schedules SET status = ?, next_run_at = ?, record = ?, revision = ? WHERE org_id = ? AND id = ?', s.status, s.next_run_at, JSON.stringify(s), revision, org, id);
  }

  private updateRun(org: string, id: string, change: (r: BriefingRun) => BriefingRun): void {
    const row = this.db.prepare('SELECT record FROM briefing_runs WHERE org_id = ? AND id = ?').get(org, id) as { record: string } | undefined;
    if (!row) return;
    const r = change(JSON.parse(row.record) as BriefingRun);
    this.run('UPDATE briefing_runs SET status = ?, next_attempt_at = ?, completed_at = ?, record = ? WHERE org_id = ? AND id = ?', r.status, r.next_attempt_at, r.completed_at, JSON.stringify(r), org, id);
  }

  reset(): void {
    for (const t of BRIEFS_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
