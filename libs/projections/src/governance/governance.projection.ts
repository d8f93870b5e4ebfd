import type { Database, Statement } from 'better-sqlite3';
import { applySettingsChanges, DEFAULT_GOVERNANCE_SETTINGS, GovernanceEventTypes as T, GovernanceSettings } from '@strata/domain/governance';
import { RecordedEvent, isGovernanceEvent, unhandled } from '@strata/domain/events';
import { PlannedProjection } from '../projection';
import { GOVERNANCE_DDL, GOVERNANCE_TABLES } from './governance-schema';
import { prepared } from '../sqlite/prepared';
import { governanceChanged } from './governance-changes';

/**
 * The governance read model: Space grants, agent tool grants, settings, policies, request
 * approvals and the last sync (REFERENCE §13.2, §13.4–§13.7). Small and read on every request
 * by the access rule, so it lives beside the accounts (and, in servers mode, in each replica's
 * in-memory mirror). Deterministic: only event data and positions.
 */
export class GovernanceProjection implements PlannedProjection {
  readonly name = 'governance';
  readonly version = 2;
  /** nothing here reads node or edge streams (keep it so) */
  readonly replayPlanner = 'outsideGraphObjects';
  private readonly stmts = new Map<string, Statement>();
  private readonly listeners: ((org: string) => void)[] = [];

  constructor(readonly db: Database) {
    db.exec(GOVERNANCE_DDL);
  }

  /** Hears the organization whose grants changed (caches drop what they hold for it). */
  onChange(listener: (org: string) => void): void {
    this.listeners.push(listener);
  }

  private run(sql: string, ...params: unknown[]): void {
    prepared(this.stmts, this.db, sql).run(...params);
  }

  applyPlanned(): void {
    throw new Error('the governance projection is only ever planned as whole events');
  }

  apply(e: RecordedEvent): void {
    if (!isGovernanceEvent(e)) return;
    switch (e.type) {
      case T.SpaceGrantSet: {
        const d = e.data;
        this.run(
          `INSERT INTO gov_space_grants(org_id, space_uid, principal_uid, access, classification_ceiling, granted_by, granted_at, updated_at, position)
           VALUES (?,?,?,?,?,?,?,?,?)
           ON CONFLICT(org_id, space_uid, principal_uid) DO UPDATE SET access = excluded.access,
             classification_ceiling = excluded.classification_ceiling, granted_by = excluded.granted_by, updated_at = excluded.updated_at`,
          d.org_id, d.space_uid, d.principal_uid, d.access, d.classification_ceiling, d.granted_by, d.at, d.at, e.position,
        );
        break;
      }
      case T.SpaceGrantRevoked: {
        const d = e.data;
        this.run('DELETE FROM gov_space_grants WHERE org_id = ? AND space_uid = ? AND principal_uid = ?', d.org_id, d.space_uid, d.principal_uid);
        break;
      }
      case T.AgentToolGranted: {
        const d = e.data;
        this.run(
          `INSERT INTO gov_tool_grants(org_id, agent_id, affordance_uid, expires_at, note, granted_by, granted_at, updated_at) VALUES (?,?,?,?,?,?,?,?)
           ON CONFLICT(org_id, agent_id, affordance_uid) DO UPDATE SET expires_at = excluded.expires_at, note = excluded.note,
             granted_by = excluded.granted_by, updated_at = excluded.updated_at`,
          d.org_id, d.agent_id, d.affordance_uid, d.expires_at, d.note, d.granted_by, d.at, d.at,
        );
        break;
      }
      case T.AgentToolRevoked: {
        const d = e.data;
        this.run('DELETE FROM gov_tool_grants WHERE org_id = ? AND agent_id = ? AND affordance_uid = ?', d.org_id, d.agent_id, d.affordance_uid);
        break;
      }
      case T.GovernanceSettingsChanged: {
        const d = e.data;
        const row = this.db.prepare('SELECT settings FROM gov_settings WHERE org_id = ?').get(d.org_id) as { settings: string } | undefined;
        const current: GovernanceSettings = row ? JSON.parse(row.settings) : { ...DEFAULT_GOVERNANCE_SETTINGS };
        this.run(
          `INSERT INTO gov_settings(org_id, settings, updated_at, updated_by) VALUES (?,?,?,?)
           ON CONFLICT(org_id) DO UPDATE SET settings = excluded.settings, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
          d.org_id, JSON.stringify(applySettingsChanges(current, d.changes)), d.at, d.changed_by,
        );
        break;
      }
      case T.PolicyCreated:
      case T.PolicyUpdated:
      case T.PolicyStatusChanged: {
        const { org_id, policy } = e.data;
        this.run(
          `INSERT INTO gov_policies(org_id, uid, status, effect, priority, created_at, policy, position) VALUES (?,?,?,?,?,?,?,?)
           ON CONFLICT(org_id, uid) DO UPDATE SET status = excluded.status, effect = excluded.effect, priority = excluded.priority,
             policy = excluded.policy, position = excluded.position`,
          org_id, policy.uid, policy.status, policy.effect, policy.priority, policy.created_at, JSON.stringify(policy), e.position,
        );
        break;
      }
      case T.PolicyDecisionRecorded: {
        const d = e.data;
        if (d.approval_uid !== null && d.effect === 'require_approval')
          this.run(
            `INSERT OR IGNORE INTO gov_request_approvals(org_id, approval_uid, principal_id, fingerprint, policy_uid, requested_at) VALUES (?,?,?,?,?,?)`,
            d.org_id, d.approval_uid, e.metadata.principal.id, d.fingerprint ?? null, d.policy_uids[0] ?? null, e.metadata.occurred_at,
          );
        return; // a record of a decision, not a change of who may do what
      }
      case T.PolicyApprovalConsumed: {
        const d = e.data;
        this.run('UPDATE gov_request_approvals SET consumed_at = ? WHERE org_id = ? AND approval_uid = ?', d.at, d.org_id, d.approval_uid);
        return; // a record of use, not a change of who may do what
      }
      case T.GovernanceSynced: {
        const d = e.data;
        this.run(
          `INSERT INTO gov_sync(org_id, last_synced_at, last_synced_by, mirrored, mirror_versions) VALUES (?,?,?,?,?)
           ON CONFLICT(org_id) DO UPDATE SET last_synced_at = excluded.last_synced_at, last_synced_by = excluded.last_synced_by,
             mirrored = excluded.mirrored, mirror_versions = excluded.mirror_versions`,
          d.org_id, d.at, d.synced_by, JSON.stringify(d.mirrored), JSON.stringify(d.mirror_versions),
        );
        break;
      }
      default:
        return unhandled(e);
    }
    governanceChanged(this.db);
    for (const l of this.listeners) l(e.data.org_id);
  }

  reset(): void {
    for (const t of GOVERNANCE_TABLES) this.db.prepare(`DELETE FROM ${t}`).run();
    governanceChanged(this.db);
  }

  rolledBack(): void {
    governanceChanged(this.db);
  }
}
