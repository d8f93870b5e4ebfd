import type { Database, Statement } from 'better-sqlite3';
import { GovernanceAuditRecord } from '@strata/domain/audit/governance-audit';
import { prepared } from '../sqlite/prepared';

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
    // a policy or target filter drives the query from the refs index, in position order (a
    // policy names a few records in many: scanning records for them was the slow way round)
    const refs = ([['policy', f.policy_uid], ['target', f.target_uid]] as const).filter((r): r is readonly ['policy' | 'target', string] => r[1] !== undefined);
    const driver = refs[0];
    const from = driver ? 'audit_refs d JOIN audit_records a ON a.org_id = d.org_id AND a.position = d.position' : 'audit_records a';
    const pos = driver ? 'd.position' : 'a.position';
    const where: string[] = [driver ? 'd.org_id = ?' : 'a.org_id = ?'];
    const args: unknown[] = [org];
    if (driver) {
      where.push('d.ref = ?', 'd.role = ?');
      args.push(driver[1], driver[0]);
    }
    if (after !== null) {
      where.push(f.order === 'asc' ? `${pos} > ?` : `${pos} < ?`);
      args.push(after);
    }
    if (f.kinds?.length) {
      where.push(`a.kind IN (${f.kinds.map(() => '?').join(',')})`);
      args.push(...f.kinds);
    }
    if (f.principal !== undefined) {
      where.push('a.principal_id = ?');
      args.push(f.principal);
    }
    if (f.decision !== undefined) {
      where.push('a.effect = ?');
      args.push(f.decision);
    }
    if (f.enforced !== undefined) {
      where.push('a.enforced = ?');
      args.push(f.enforced ? 1 : 0);
    }
    if (f.since !== undefined) {
      where.push('a.occurred_at >= ?');
      args.push(f.since);
    }
    if (f.until !== undefined) {
      where.push('a.occurred_at < ?');
      args.push(f.until);
    }
    for (const [role, ref] of refs.slice(1)) {
      where.push(`EXISTS (SELECT 1 FROM audit_refs x WHERE x.org_id = a.org_id AND x.ref = ? AND x.role = '${role}' AND x.position = a.position)`);
      args.push(ref);
    }
    const sql = `SELECT a.record FROM ${from} WHERE ${where.join(' AND ')} ORDER BY ${pos} ${f.order === 'asc' ? 'ASC' : 'DESC'} LIMIT ?`;
    const rows = prepared(this.stmts, this.db, sql).all(...args, limit + 1) as { record: string }[];
    const has_more = rows.length > limit;
    if (has_more) rows.pop();
    return { items: rows.map((r) => JSON.parse(r.record) as GovernanceAuditRecord), has_more };
  }
}
