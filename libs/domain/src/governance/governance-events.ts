import { Classification } from './classification';
import { SpaceAccessLevel } from './space-access';
import type { SettingsChanges } from './governance-settings';

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

export const GovernanceStreams = {
  /** organization-wide governance facts: settings (and, later, decisions) */
  governance: (org: string) => `governance-${org}`,
  spaceGrants: (org: string, spaceUid: string) => `space-grants-${org}:${spaceUid}`,
  agentTools: (org: string, agentId: string) => `agent-tools-${org}:${agentId}`,
};

/** Prefixes of the governance streams: small, read on every request, mirrored beside the accounts. */
export const GOVERNANCE_STREAM_PREFIXES: readonly string[] = ['space-grants-', 'agent-tools-', 'governance-'];
