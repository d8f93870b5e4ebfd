import type { Database, Statement } from 'better-sqlite3';
import { Correction, ItemMemory, ProjectRole, StoredBriefVersion } from '@strata/domain/briefs';

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
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    return s;
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

  /** Whether the principal holds a grant on any Project (an agent with one is no longer unrestricted). */
  hasAnyGrant(org: string, principalUid: string): boolean {
    return this.stmt('SELECT 1 FROM brief_project_grants WHERE org_id = ? AND principal_uid = ? LIMIT 1').get(org, principalUid) !== undefined;
  }
}
