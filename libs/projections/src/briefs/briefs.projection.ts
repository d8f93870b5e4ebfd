import type { Database, Statement } from 'better-sqlite3';
import { BriefEventTypes as T } from '@strata/domain/briefs';
import { RecordedEvent, isBriefEvent, unhandled } from '@strata/domain/events';
import { EmbeddedProjection } from '../projection';
import { BRIEFS_DDL, BRIEFS_TABLES } from './briefs-schema';

/**
 * The briefs read model (REFERENCE §12): each Project's versions (whole, as their events carry
 * them), its current version and last failed regeneration, what every item id remembers across
 * versions (first version, correction), and Project grants. Deterministic: only event data, so a
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
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    s.run(...params);
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
      default:
        return unhandled(e);
    }
  }

  reset(): void {
    for (const t of BRIEFS_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
