import type { Database, Statement } from 'better-sqlite3';
import { AuditStatusMemory, governanceAuditRecord } from '@strata/domain/audit/governance-audit';
import { RecordedEvent } from '@strata/domain/events';
import { EmbeddedProjection } from '../projection';
import { prepared } from '../sqlite/prepared';

export const AUDIT_TABLES = ['audit_records', 'audit_refs', 'audit_status'] as const;

const AUDIT_DDL = `
CREATE TABLE IF NOT EXISTS audit_records (
  org_id TEXT NOT NULL, position INTEGER NOT NULL, kind TEXT NOT NULL, principal_id TEXT NOT NULL,
  effect TEXT, enforced INTEGER, occurred_at TEXT NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY (org_id, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS audit_refs (
  org_id TEXT NOT NULL, ref TEXT NOT NULL, role TEXT NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (org_id, ref, role, position)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS audit_status (
  org_id TEXT NOT NULL, uid TEXT NOT NULL, status TEXT,
  PRIMARY KEY (org_id, uid)
) WITHOUT ROWID;
`;

/**
 * The governance audit (REFERENCE §13.8) as a projection of the log: one row per audited
 * event, keyed by its global position, never changed afterwards; the policies and targets a
 * record names are indexed beside it for the filters.
 */
export class AuditProjection implements EmbeddedProjection {
  readonly name = 'audit';
  readonly version = 1;
  private readonly stmts = new Map<string, Statement>();
  private readonly memory: AuditStatusMemory;

  constructor(readonly db: Database) {
    db.exec(AUDIT_DDL);
    this.memory = {
      get: (org, uid) => {
        const r = this.stmt('SELECT status FROM audit_status WHERE org_id = ? AND uid = ?').get(org, uid) as { status: string | null } | undefined;
        return r ? r.status : undefined;
      },
      set: (org, uid, status) => void this.stmt('INSERT INTO audit_status(org_id, uid, status) VALUES (?,?,?) ON CONFLICT(org_id, uid) DO UPDATE SET status = excluded.status').run(org, uid, status),
    };
  }

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  apply(e: RecordedEvent): void {
    const r = governanceAuditRecord(e, this.memory);
    if (!r) return;
    const org = e.metadata.org_id;
    this.stmt('INSERT OR IGNORE INTO audit_records(org_id, position, kind, principal_id, effect, enforced, occurred_at, record) VALUES (?,?,?,?,?,?,?,?)').run(
      // the event id is not stored: events applied inline arrive before the log names them, so a
      // rebuild would differ; the route reads it back by position
      org, r.position, r.kind, r.principal.id, r.decision?.effect ?? null, r.decision ? (r.decision.enforced ? 1 : 0) : null, r.occurred_at, JSON.stringify({ ...r, id: '' }),
    );
    const ref = this.stmt('INSERT OR IGNORE INTO audit_refs(org_id, ref, role, position) VALUES (?,?,?,?)');
    if (r.decision) for (const p of new Set([...r.decision.policy_uids, ...r.decision.shadow.map((s) => s.policy_uid)])) ref.run(org, p, 'policy', r.position);
    for (const u of new Set([...r.target_uids, ...(r.subject_uid ? [r.subject_uid] : [])])) ref.run(org, u, 'target', r.position);
  }

  reset(): void {
    for (const t of AUDIT_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
  }
}
