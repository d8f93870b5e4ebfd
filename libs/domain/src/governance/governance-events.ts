import { Classification } from './classification';
import { SpaceAccessLevel } from './space-access';
import type { SettingsChanges } from './governance-settings';
import type { PolicyEffect, PolicyRecord, PolicyStatus } from './policy';

/**
 * Governance events (REFERENCE §13). Space grants live on `space-grants-<org>:<space_uid>`.
 * Times are Unix seconds like every event; the /v1 routes present them as ISO 8601.
 */
export const GovernanceEventTypes = {
  SpaceGrantSet: 'SpaceGrantSet',
  SpaceGrantRevoked: 'SpaceGrantRevoked',
  AgentToolGranted: 'AgentToolGranted',
  AgentToolRevoked: 'AgentToolRevoked',
  GovernanceSettingsChanged: 'GovernanceSettingsChanged',
  PolicyCreated: 'PolicyCreated',
  PolicyUpdated: 'PolicyUpdated',
  PolicyStatusChanged: 'PolicyStatusChanged',
  PolicyDecisionRecorded: 'PolicyDecisionRecorded',
  PolicyApprovalConsumed: 'PolicyApprovalConsumed',
  GovernanceSynced: 'GovernanceSynced',
} as const;
export type GovernanceEventType = (typeof GovernanceEventTypes)[keyof typeof GovernanceEventTypes];

export interface SpaceGrantState {
  access: SpaceAccessLevel;
  classification_ceiling: Classification | null;
}

export interface SpaceGrantSetData extends SpaceGrantState {
  org_id: string;
  space_uid: string;
  principal_uid: string;
  /** the grant this one replaces; null for a new grant */
  previous: SpaceGrantState | null;
  granted_by: string;
  at: number;
}

export interface SpaceGrantRevokedData {
  org_id: string;
  space_uid: string;
  principal_uid: string;
  revoked_by: string;
  at: number;
}

/** An agent may invoke a tool (an Affordance) until `expires_at` (Unix seconds; null = no end). */
export interface AgentToolGrantedData {
  org_id: string;
  agent_id: string;
  affordance_uid: string;
  expires_at: number | null;
  note: string | null;
  granted_by: string;
  at: number;
}

export interface AgentToolRevokedData {
  org_id: string;
  agent_id: string;
  affordance_uid: string;
  revoked_by: string;
  at: number;
}

export interface GovernanceSettingsChangedData {
  org_id: string;
  changes: SettingsChanges;
  changed_by: string;
  at: number;
}

export interface PolicyCreatedData {
  org_id: string;
  policy: PolicyRecord;
}

export interface PolicyUpdatedData {
  org_id: string;
  policy: PolicyRecord;
  changed_fields: string[];
}

export interface PolicyStatusChangedData {
  org_id: string;
  policy_uid: string;
  from: PolicyStatus;
  to: PolicyStatus;
  reason: string | null;
  /** the policy after the change (the read model takes it whole) */
  policy: PolicyRecord;
}

/** One evaluation that matched a policy or a tool grant decided (REFERENCE §13.6, §13.8). */
export interface PolicyDecisionRecordedData {
  org_id: string;
  decision_id: string;
  method: string | null;
  route: string | null;
  tool_uid: string | null;
  target_uids: string[];
  effect: PolicyEffect;
  enforced: boolean;
  policy_uids: string[];
  shadow: { policy_uid: string; effect: PolicyEffect }[];
  approval_uid: string | null;
  reason: string | null;
  /** the request's fingerprint when it asked for an approval (the replay must match it) */
  fingerprint?: string | null;
}

/** A request approval was used by its replay; it cannot be used again. */
export interface PolicyApprovalConsumedData {
  org_id: string;
  approval_uid: string;
  method: string;
  route: string;
  at: number;
}

export interface GovernanceSyncCounts {
  policies: number;
  nodes_created: number;
  nodes_updated: number;
  nodes_tombstoned: number;
  edges_created: number;
  edges_tombstoned: number;
}

/** Mirrors were written (REFERENCE §13.7); `mirrored` is each policy's mirrored version (null: none). */
export interface GovernanceSyncedData {
  org_id: string;
  counts: GovernanceSyncCounts;
  mirrored: Record<string, number | null>;
  /** the mirror nodes' versions as sync left them (edits made elsewhere count as drift) */
  mirror_versions: Record<string, number>;
  synced_by: string;
  at: number;
}

export const GovernanceStreams = {
  /** organization-wide governance facts: settings, decisions, syncs */
  governance: (org: string) => `governance-${org}`,
  policy: (org: string, uid: string) => `policy-${org}:${uid}`,
  /** one stream per request approval used: created once, so a second use loses the race */
  approvalUse: (org: string, approvalUid: string) => `approval-use-${org}:${approvalUid}`,
  spaceGrants: (org: string, spaceUid: string) => `space-grants-${org}:${spaceUid}`,
  agentTools: (org: string, agentId: string) => `agent-tools-${org}:${agentId}`,
};

/** Prefixes of the governance streams: small, read on every request, mirrored beside the accounts. */
export const GOVERNANCE_STREAM_PREFIXES: readonly string[] = ['space-grants-', 'agent-tools-', 'governance-', 'policy-', 'approval-use-'];
