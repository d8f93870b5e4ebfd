import type { Database, Statement } from 'better-sqlite3';
import {
  Classification,
  DEFAULT_GOVERNANCE_SETTINGS,
  GovernanceSettings,
  PolicyEffect,
  PolicyRecord,
  PolicyStatus,
  SpaceAccessLevel,
  SpaceGrantTerms,
} from '@strata/domain/governance';
import { prepared } from '../sqlite/prepared';
import { governanceGeneration } from './governance-changes';

/** A Space grant as stored (times in Unix seconds). */
export interface SpaceGrantRow {
  space_uid: string;
  principal_uid: string;
  access: SpaceAccessLevel;
  classification_ceiling: Classification | null;
  granted_by: string;
  granted_at: number;
  updated_at: number;
}

/**
 * Reads of the governance projection. Synchronous (SQLite, in-process on both storage modes),
 * because the access rule asks on every request.
 */
export class GovernanceReadModel {
  private readonly stmts = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  /** The grants of one principal (`user:<id>`, `agent:<id>`), by Space uid. */
  grantsOf(org: string, principalUid: string): Map<string, SpaceGrantTerms> {
    const rows = this.stmt('SELECT space_uid, access, classification_ceiling FROM gov_space_grants WHERE org_id = ? AND principal_uid = ?').all(org, principalUid) as {
      space_uid: string;
      access: SpaceAccessLevel;
      classification_ceiling: Classification | null;
    }[];
    return new Map(rows.map((r) => [r.space_uid, { access: r.access, classification_ceiling: r.classification_ceiling }]));
  }

  grant(org: string, spaceUid: string, principalUid: string): SpaceGrantRow | null {
    return (this.stmt(`SELECT ${GRANT_COLUMNS} FROM gov_space_grants WHERE org_id = ? AND space_uid = ? AND principal_uid = ?`).get(org, spaceUid, principalUid) as SpaceGrantRow) ?? null;
  }

  /** A page of a Space's grants, `granted_at` asc then principal. */
  grantsOfSpace(org: string, spaceUid: string, limit: number, offset: number): { items: SpaceGrantRow[]; has_more: boolean } {
    const rows = this.stmt(`SELECT ${GRANT_COLUMNS} FROM gov_space_grants WHERE org_id = ? AND space_uid = ? ORDER BY granted_at, principal_uid LIMIT ? OFFSET ?`).all(
      org, spaceUid, limit + 1, offset,
    ) as SpaceGrantRow[];
    const has_more = rows.length > limit;
    if (has_more) rows.pop();
    return { items: rows, has_more };
  }

  /** Number of grants per Space of the organization. */
  grantCounts(org: string): Map<string, number> {
    const rows = this.stmt('SELECT space_uid, count(*) AS n FROM gov_space_grants WHERE org_id = ? GROUP BY space_uid').all(org) as { space_uid: string; n: number }[];
    return new Map(rows.map((r) => [r.space_uid, r.n]));
  }

  toolGrant(org: string, agentId: string, affordanceUid: string): ToolGrantRow | null {
    return (
      (this.stmt('SELECT * FROM gov_tool_grants WHERE org_id = ? AND agent_id = ? AND affordance_uid = ?').get(org, agentId, affordanceUid) as ToolGrantRow | undefined) ?? null
    );
  }

  toolGrantsOf(org: string, agentId: string): Map<string, ToolGrantRow> {
    const rows = this.stmt('SELECT * FROM gov_tool_grants WHERE org_id = ? AND agent_id = ?').all(org, agentId) as ToolGrantRow[];
    return new Map(rows.map((r) => [r.affordance_uid, r]));
  }

  /** The organization's settings (the defaults until first changed), with who changed them last. */
  settings(org: string): { settings: GovernanceSettings; updated_at: number | null; updated_by: string | null } {
    const row = this.stmt('SELECT settings, updated_at, updated_by FROM gov_settings WHERE org_id = ?').get(org) as
      | { settings: string; updated_at: number; updated_by: string }
      | undefined;
    if (!row) return { settings: { ...DEFAULT_GOVERNANCE_SETTINGS }, updated_at: null, updated_by: null };
    return { settings: JSON.parse(row.settings), updated_at: row.updated_at, updated_by: row.updated_by };
  }

  /**
   * Moves whenever settings, policies or grants may have changed, for any organization of this
   * database, including by a rollback (governance-changes.ts): a cache keyed by it needs no read.
   */
  generation(): number {
    return governanceGeneration(this.db);
  }

  policy(org: string, uid: string): PolicyRecord | null {
    const r = this.stmt('SELECT policy FROM gov_policies WHERE org_id = ? AND uid = ?').get(org, uid) as { policy: string } | undefined;
    return r ? (JSON.parse(r.policy) as PolicyRecord) : null;
  }

  /** Every policy of the organization in evaluation order: priority desc, created_at asc, uid. */
  policies(org: string, filter: { statuses?: readonly PolicyStatus[]; effect?: PolicyEffect } = {}): PolicyRecord[] {
    const rows = this.stmt('SELECT status, effect, policy FROM gov_policies WHERE org_id = ? ORDER BY priority DESC, created_at ASC, uid ASC').all(org) as {
      status: PolicyStatus;
      effect: PolicyEffect;
      policy: string;
    }[];
    return rows
      .filter((r) => (!filter.statuses || filter.statuses.includes(r.status)) && (!filter.effect || r.effect === filter.effect))
      .map((r) => JSON.parse(r.policy) as PolicyRecord);
  }

  policyCounts(org: string): Record<PolicyStatus, number> {
    const out: Record<PolicyStatus, number> = { draft: 0, shadow: 0, published: 0, rejected: 0 };
    for (const r of this.stmt('SELECT status, count(*) AS n FROM gov_policies WHERE org_id = ? GROUP BY status').all(org) as { status: PolicyStatus; n: number }[])
      out[r.status] = r.n;
    return out;
  }

  /** A request approval created by a policy decision: who asked, for which request, whether it was used. */
  requestApproval(org: string, approvalUid: string): RequestApprovalRow | null {
    return (this.stmt('SELECT * FROM gov_request_approvals WHERE org_id = ? AND approval_uid = ?').get(org, approvalUid) as RequestApprovalRow | undefined) ?? null;
  }

  /** The last sync: when, by whom, which policy versions it mirrored and the mirrors' versions it left. */
  lastSync(org: string): SyncRow | null {
    const r = this.stmt('SELECT * FROM gov_sync WHERE org_id = ?').get(org) as
      | { last_synced_at: number; last_synced_by: string; mirrored: string; mirror_versions: string }
      | undefined;
    if (!r) return null;
    return { last_synced_at: r.last_synced_at, last_synced_by: r.last_synced_by, mirrored: JSON.parse(r.mirrored), mirror_versions: JSON.parse(r.mirror_versions) };
  }

  /** Whether an agent principal holds any Space grant (its scope is then limited to them, §13.3). */
  hasAnyGrant(org: string, principalUid: string): boolean {
    return !!this.stmt('SELECT 1 FROM gov_space_grants WHERE org_id = ? AND principal_uid = ? LIMIT 1').get(org, principalUid);
  }
}

/** An agent's grant on a tool (times in Unix seconds). */
export interface ToolGrantRow {
  agent_id: string;
  affordance_uid: string;
  expires_at: number | null;
  note: string | null;
  granted_by: string;
  granted_at: number;
  updated_at: number;
}

const GRANT_COLUMNS = 'space_uid, principal_uid, access, classification_ceiling, granted_by, granted_at, updated_at';

export interface RequestApprovalRow {
  org_id: string;
  approval_uid: string;
  principal_id: string;
  fingerprint: string | null;
  policy_uid: string | null;
  requested_at: number;
  consumed_at: number | null;
}

export interface SyncRow {
  last_synced_at: number;
  last_synced_by: string;
  mirrored: Record<string, number | null>;
  mirror_versions: Record<string, number>;
}
