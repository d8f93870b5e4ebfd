import type { Database, Statement } from 'better-sqlite3';
import { GovernanceAuditRecord } from '@strata/domain/audit/governance-audit';

export interface AuditFilter {
  kinds?: readonly string[];
  principal?: string;
  policy_uid?: string;
  target_uid?: string;
  decision?: string;
  enforced?: boolean;
  /** ISO 8601, inclusive */
  since?: string;
  /** ISO 8601, exclusive */
  until?: string;
  order: 'asc' | 'desc';
}

/** Reads of the audit projection: pages by position, after (or before) a position. */
export class AuditReadModel {
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  /** `limit + 1` rows are read so the caller knows whether more follow. */
  page(org: string, f: AuditFilter, after: number | null, limit: number): { items: GovernanceAuditRecord[]; has_more: boolean } {
    const where: string[] = ['org_id = ?'];
    const args: unknown[] = [org];
    if (after !== null) {
      where.push(f.order === 'asc' ? 'position > ?' : 'position < ?');
      args.push(after);
    }
    if (f.kinds?.length) {
      where.push(`kind IN (${f.kinds.map(() => '?').join(',')})`);
      args.push(...f.kinds);
    }
    if (f.principal !== undefined) {
      where.push('principal_id = ?');
      args.push(f.principal);
    }
    if (f.decision !== undefined) {
      where.push('effect = ?');
      args.push(f.decision);
    }
    if (f.enforced !== undefined) {
      where.push('enforced = ?');
      args.push(f.enforced ? 1 : 0);
    }
    if (f.since !== undefined) {
      where.push('occurred_at >= ?');
      args.push(f.since);
    }
    if (f.until !== undefined) {
      where.push('occurred_at < ?');
      args.push(f.until);
    }
    for (const [role, ref] of [['policy', f.policy_uid], ['target', f.target_uid]] as const) {
      if (ref === undefined) continue;
      where.push(`position IN (SELECT position FROM audit_refs WHERE org_id = ? AND ref = ? AND role = '${role}')`);
      args.push(org, ref);
    }
    const sql = `SELECT record FROM audit_records WHERE ${where.join(' AND ')} ORDER BY position ${f.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
    let s = this.stmts.get(sql);
    if (!s) this.stmts.set(sql, (s = this.db.prepare(sql)));
    const rows = s.all(...args, limit + 1) as { record: string }[];
    const has_more = rows.length > limit;
    if (has_more) rows.pop();
    return { items: rows.map((r) => JSON.parse(r.record) as GovernanceAuditRecord), has_more };
  }
}
