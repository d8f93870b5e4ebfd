import { AccountEventTypes } from '../accounts/account-events';
import type {
  AccountEventType,
  ApiKeyCreatedData,
  ApiKeyRevokedData,
  ApiKeyRotatedData,
  CreditsConsumedData,
  LlmUsageRecordedData,
  MemberAddedData,
  MemberRemovedData,
  MemberRoleChangedData,
  OrganizationCreatedData,
  PlanChangedData,
  RefreshFamilyRevokedData,
  RefreshTokenIssuedData,
  RefreshTokenUsedData,
  UserSignedUpData,
} from '../accounts/account-events';
import { GovernanceEventTypes } from '../governance/governance-events';
import type {
  AgentToolGrantedData,
  AgentToolRevokedData,
  GovernanceEventType,
  GovernanceSettingsChangedData,
  GovernanceSyncedData,
  PolicyApprovalConsumedData,
  PolicyCreatedData,
  PolicyDecisionRecordedData,
  PolicyStatusChangedData,
  PolicyUpdatedData,
  SpaceGrantRevokedData,
  SpaceGrantSetData,
} from '../governance/governance-events';
import { OntologyEventTypes } from '../ontology/ontology-events';
import type {
  OntologyEventType,
  OntologyIdentityClaimedData,
  OntologyRelationSlotClaimedData,
  OntologyObjectTypeChangedData,
  OntologyProposalChangedData,
  OntologyRelationTypeChangedData,
  OntologySchemaChangedData,
} from '../ontology/ontology-events';
import { BriefEventTypes } from '../briefs/brief-events';
import type { BriefEventType, BriefRegenerationFailedData, BriefVersionCreatedData, ProjectGrantRevokedData, ProjectGrantSetData } from '../briefs/brief-events';
import type {
  BriefingDeliveryAttemptedData,
  BriefingRunFinishedData,
  BriefingRunQueuedData,
  BriefingRunStartedData,
  BriefingScheduleCreatedData,
  BriefingScheduleDeletedData,
  BriefingScheduleReplacedData,
  BriefingScheduleUpdatedData,
  BriefingSecretRotatedData,
} from '../briefs/briefing-events';
import { McpEventTypes } from '../mcp/mcp-events';
import type { ToolApprovalCancelledData, ToolApprovalExpiredData, ToolApprovalRequestedData, ToolApprovalResolvedData } from '../mcp/approval-events';
import type {
  McpAuthorizationStartedData,
  McpConnectionAuthorizedData,
  McpConnectionCreatedData,
  McpConnectionDisconnectedData,
  McpConnectionStatusChangedData,
  McpConnectionSyncedData,
  McpConnectionUpdatedData,
  McpCredentialsReplacedData,
  McpDriftAcknowledgedData,
  McpEventType,
  McpTokenRefreshedData,
  McpToolAddedData,
  McpToolChangedData,
  McpToolRemovedData,
} from '../mcp/mcp-events';
import type { EventMetadata, EventOf, RecordedEvent } from './envelope';
import { AgentEventTypes } from '../agents/agent-events';
import type { AgentChangedData, AgentEventType, AgentNameClaimedData, AgentPlanClaimedData } from '../agents/agent-events';
import type { SessionStreamEvent } from '../agents/session-state';
import type { ScheduleEvent } from '../agents/schedule-events';
import {
  AliasRemovedData,
  AliasSetData,
  EdgeVersionedData,
  EmbeddingConfiguredData,
  EmbeddingDeletedData,
  EmbeddingSetData,
  GraphClearedData,
  GraphEventTypes,
  GraphPurgedData,
  NodeTouchedData,
  NodeVersionedData,
  SalienceDecayedData,
  SeriesPointsAppendedData,
} from './graph-events';

/**
 * Every event the log holds, one discriminated union per area. A projection that switches on
 * `e.type` gets `e.data` typed, and ends with `unhandled(e)`: a new event type then does not
 * compile until every projection decides what to do with it.
 */
export type GraphEvent =
  | EventOf<'NodeCreated', NodeVersionedData>
  | EventOf<'NodeUpdated', NodeVersionedData>
  | EventOf<'NodeTombstoned', NodeVersionedData>
  | EventOf<'NodeRestored', NodeVersionedData>
  | EventOf<'NodeTouched', NodeTouchedData>
  | EventOf<'EdgeCreated', EdgeVersionedData>
  | EventOf<'EdgeUpdated', EdgeVersionedData>
  | EventOf<'EdgeTombstoned', EdgeVersionedData>
  | EventOf<'EdgeRestored', EdgeVersionedData>
  | EventOf<'AliasSet', AliasSetData>
  | EventOf<'AliasRemoved', AliasRemovedData>
  | EventOf<'SalienceDecayed', SalienceDecayedData>
  | EventOf<'EmbeddingConfigured', EmbeddingConfiguredData>
  | EventOf<'EmbeddingSet', EmbeddingSetData>
  | EventOf<'EmbeddingDeleted', EmbeddingDeletedData>
  | EventOf<'SeriesPointsAppended', SeriesPointsAppendedData>
  | EventOf<'GraphPurged', GraphPurgedData>
  | EventOf<'GraphCleared', GraphClearedData>;

export type AccountEvent =
  | EventOf<'UserSignedUp', UserSignedUpData>
  | EventOf<'OrganizationCreated', OrganizationCreatedData>
  | EventOf<'MemberAdded', MemberAddedData>
  | EventOf<'MemberRoleChanged', MemberRoleChangedData>
  | EventOf<'MemberRemoved', MemberRemovedData>
  | EventOf<'ApiKeyCreated', ApiKeyCreatedData>
  | EventOf<'ApiKeyRotated', ApiKeyRotatedData>
  | EventOf<'ApiKeyRevoked', ApiKeyRevokedData>
  | EventOf<'RefreshTokenIssued', RefreshTokenIssuedData>
  | EventOf<'RefreshTokenUsed', RefreshTokenUsedData>
  | EventOf<'RefreshFamilyRevoked', RefreshFamilyRevokedData>
  | EventOf<'PlanChanged', PlanChangedData>
  | EventOf<'CreditsConsumed', CreditsConsumedData>
  | EventOf<'LlmUsageRecorded', LlmUsageRecordedData>;

/** Governance (REFERENCE §13): grants, policies, settings, decisions. */
export type GovernanceEvent =
  | EventOf<'SpaceGrantSet', SpaceGrantSetData>
  | EventOf<'SpaceGrantRevoked', SpaceGrantRevokedData>
  | EventOf<'AgentToolGranted', AgentToolGrantedData>
  | EventOf<'AgentToolRevoked', AgentToolRevokedData>
  | EventOf<'GovernanceSettingsChanged', GovernanceSettingsChangedData>
  | EventOf<'PolicyCreated', PolicyCreatedData>
  | EventOf<'PolicyUpdated', PolicyUpdatedData>
  | EventOf<'PolicyStatusChanged', PolicyStatusChangedData>
  | EventOf<'PolicyDecisionRecorded', PolicyDecisionRecordedData>
  | EventOf<'PolicyApprovalConsumed', PolicyApprovalConsumedData>
  | EventOf<'GovernanceSynced', GovernanceSyncedData>;


export type OntologyEvent =
  | EventOf<'OntologySchemaCreated', OntologySchemaChangedData>
  | EventOf<'OntologySchemaUpdated', OntologySchemaChangedData>
  | EventOf<'OntologySchemaActivated', OntologySchemaChangedData>
  | EventOf<'OntologySchemaDeprecated', OntologySchemaChangedData>
  | EventOf<'OntologySchemaArchived', OntologySchemaChangedData>
  | EventOf<'OntologyObjectTypeAdded', OntologyObjectTypeChangedData>
  | EventOf<'OntologyObjectTypeUpdated', OntologyObjectTypeChangedData>
  | EventOf<'OntologyObjectTypeArchived', OntologyObjectTypeChangedData>
  | EventOf<'OntologyRelationTypeAdded', OntologyRelationTypeChangedData>
  | EventOf<'OntologyRelationTypeUpdated', OntologyRelationTypeChangedData>
  | EventOf<'OntologyRelationTypeArchived', OntologyRelationTypeChangedData>
  | EventOf<'OntologyProposalCreated', OntologyProposalChangedData>
  | EventOf<'OntologyProposalEdited', OntologyProposalChangedData>
  | EventOf<'OntologyProposalApproved', OntologyProposalChangedData>
  | EventOf<'OntologyProposalRejected', OntologyProposalChangedData>
  | EventOf<'OntologyProposalApplied', OntologyProposalChangedData>
  | EventOf<'OntologyProposalApplyFailed', OntologyProposalChangedData>
  | EventOf<'OntologyIdentityClaimed', OntologyIdentityClaimedData>
  | EventOf<'OntologyRelationSlotClaimed', OntologyRelationSlotClaimedData>;

/** Projects' briefs and grants (REFERENCE §12). */
export type BriefEvent =
  | EventOf<'BriefVersionCreated', BriefVersionCreatedData>
  | EventOf<'BriefRegenerationFailed', BriefRegenerationFailedData>
  | EventOf<'ProjectGrantSet', ProjectGrantSetData>
  | EventOf<'ProjectGrantRevoked', ProjectGrantRevokedData>
  | BriefingEvent;

/** Briefing schedules and their runs (REFERENCE §12.7): one stream per schedule. */
export type BriefingEvent =
  | EventOf<'BriefingScheduleCreated', BriefingScheduleCreatedData>
  | EventOf<'BriefingScheduleReplaced', BriefingScheduleReplacedData>
  | EventOf<'BriefingScheduleUpdated', BriefingScheduleUpdatedData>
  | EventOf<'BriefingSecretRotated', BriefingSecretRotatedData>
  | EventOf<'BriefingScheduleDeleted', BriefingScheduleDeletedData>
  | EventOf<'BriefingRunQueued', BriefingRunQueuedData>
  | EventOf<'BriefingRunStarted', BriefingRunStartedData>
  | EventOf<'BriefingDeliveryAttempted', BriefingDeliveryAttemptedData>
  | EventOf<'BriefingRunFinished', BriefingRunFinishedData>;


/** MCP connections (REFERENCE §15): one stream per connection. */
export type McpEvent =
  | EventOf<'McpConnectionCreated', McpConnectionCreatedData>
  | EventOf<'McpConnectionSynced', McpConnectionSyncedData>
  | EventOf<'McpToolAdded', McpToolAddedData>
  | EventOf<'McpToolChanged', McpToolChangedData>
  | EventOf<'McpToolRemoved', McpToolRemovedData>
  | EventOf<'McpConnectionStatusChanged', McpConnectionStatusChangedData>
  | EventOf<'McpConnectionUpdated', McpConnectionUpdatedData>
  | EventOf<'McpDriftAcknowledged', McpDriftAcknowledgedData>
  | EventOf<'McpConnectionDisconnected', McpConnectionDisconnectedData>
  | EventOf<'McpAuthorizationStarted', McpAuthorizationStartedData>
  | EventOf<'McpConnectionAuthorized', McpConnectionAuthorizedData>
  | EventOf<'McpCredentialsReplaced', McpCredentialsReplacedData>
  | EventOf<'McpTokenRefreshed', McpTokenRefreshedData>
  | EventOf<'ToolApprovalRequested', ToolApprovalRequestedData>
  | EventOf<'ToolApprovalResolved', ToolApprovalResolvedData>
  | EventOf<'ToolApprovalExpired', ToolApprovalExpiredData>
  | EventOf<'ToolApprovalCancelled', ToolApprovalCancelledData>;


/** Managed agents (REFERENCE §16): agent records, and everything that happens in their sessions. */
export type AgentEvent =
  | EventOf<'AgentCreated', AgentChangedData>
  | EventOf<'AgentUpdated', AgentChangedData>
  | EventOf<'AgentPaused', AgentChangedData>
  | EventOf<'AgentResumed', AgentChangedData>
  | EventOf<'AgentArchived', AgentChangedData>
  | EventOf<'AgentNameClaimed', AgentNameClaimedData>
  | EventOf<'AgentPlanClaimed', AgentPlanClaimedData>
  | SessionStreamEvent
  | ScheduleEvent;

export type DomainEvent = GraphEvent | AccountEvent | GovernanceEvent | OntologyEvent | BriefEvent | McpEvent | AgentEvent;
export type EventType = DomainEvent['type'];
/** The data an event of type T carries. */
export type EventData<T extends EventType> = Extract<DomainEvent, { type: T }>['data'];

// the constant tables and the unions name the same types: a type added to one and not the
// other fails to compile here
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const graphTypesMatch: Same<GraphEvent['type'], keyof typeof GraphEventTypes> = true;
const accountTypesMatch: Same<AccountEvent['type'], AccountEventType> = true;
const governanceTypesMatch: Same<GovernanceEvent['type'], GovernanceEventType> = true;
void graphTypesMatch;
void accountTypesMatch;
void governanceTypesMatch;
const ontologyTypesMatch: Same<OntologyEvent['type'], OntologyEventType> = true;
void ontologyTypesMatch;
const briefTypesMatch: Same<BriefEvent['type'], BriefEventType> = true;
void briefTypesMatch;
const mcpTypesMatch: Same<McpEvent['type'], McpEventType> = true;
void mcpTypesMatch;
const agentTypesMatch: Same<AgentEvent['type'], AgentEventType> = true;
void agentTypesMatch;

const GRAPH_TYPES: ReadonlySet<string> = new Set(Object.keys(GraphEventTypes));
const ACCOUNT_TYPES: ReadonlySet<string> = new Set(Object.keys(AccountEventTypes));
const GOVERNANCE_TYPES: ReadonlySet<string> = new Set(Object.keys(GovernanceEventTypes));
const ONTOLOGY_TYPES: ReadonlySet<string> = new Set(Object.keys(OntologyEventTypes));
const BRIEF_TYPES: ReadonlySet<string> = new Set(Object.keys(BriefEventTypes));
const MCP_TYPES: ReadonlySet<string> = new Set(Object.keys(McpEventTypes));
const AGENT_TYPES: ReadonlySet<string> = new Set(Object.keys(AgentEventTypes));

export function isGraphEvent<E extends { type: string }>(e: E): e is Extract<E, GraphEvent> {
  return GRAPH_TYPES.has(e.type);
}

export function isAccountEvent<E extends { type: string }>(e: E): e is Extract<E, AccountEvent> {
  return ACCOUNT_TYPES.has(e.type);
}

export function isGovernanceEvent<E extends { type: string }>(e: E): e is Extract<E, GovernanceEvent> {
  return GOVERNANCE_TYPES.has(e.type);
}

export function isOntologyEvent<E extends { type: string }>(e: E): e is Extract<E, OntologyEvent> {
  return ONTOLOGY_TYPES.has(e.type);
}

export function isBriefEvent<E extends { type: string }>(e: E): e is Extract<E, BriefEvent> {
  return BRIEF_TYPES.has(e.type);
}

export function isMcpEvent<E extends { type: string }>(e: E): e is Extract<E, McpEvent> {
  return MCP_TYPES.has(e.type);
}

export function isAgentEvent<E extends { type: string }>(e: E): e is Extract<E, AgentEvent> {
  return AGENT_TYPES.has(e.type);
}

/**
 * The end of an exhaustive `switch (e.type)`: `e` must be `never` there, so every type of
 * the union has a case. At run time an event this build does not know (a log written by a
 * newer version) reaches it and is passed over, as it was before types were checked.
 */
export function unhandled(e: never): void {
  void e;
}

/** The event of type T with its data: how code that appends builds one. */
export function domainEvent<T extends EventType>(type: T, data: EventData<T>): Extract<DomainEvent, { type: T }> {
  // TypeScript cannot relate a generic T to its member of the union; the signature does
  return { type, data } as unknown as Extract<DomainEvent, { type: T }>;
}

/**
 * An event's data as a bag of named fields, for the readers that look at every type alike
 * (audit: which object a change is about).
 */
export function eventFields(e: { data: unknown }): Readonly<Record<string, unknown>> {
  const fields: Record<string, unknown> = typeof e.data === 'object' && e.data !== null ? { ...e.data } : {};
  return fields;
}

/**
 * A (type, data) pair as a log holds it, taken as the domain event its type names: for code
 * whose events come from outside this build's types (a log, a test's fixture).
 */
export function eventFromLog(type: string, data: unknown): DomainEvent {
  return { type, data } as DomainEvent;
}

/** An event as an adapter reads it back from its log: the type still a plain string. */
export interface StoredEvent {
  id: string;
  stream: string;
  revision: number;
  position: number;
  type: string;
  data: unknown;
  metadata: EventMetadata;
}

/**
 * A stored event taken as the domain event its type names (the same object, no copy: this is
 * the rebuild's hot path). The log holds only what this code appended, or what a newer
 * version of it did, so the pair is trusted rather than re-validated; a type this build does
 * not know reaches every projection's `unhandled` and is passed over. Every event-store
 * adapter decodes through here, and nothing else converts to the union.
 */
export function recordedEvent(e: StoredEvent): RecordedEvent {
  return e as RecordedEvent;
}

/** The versioned node events: each carries the full node record as of its new version. */
export type NodeVersionedEvent = Extract<GraphEvent, { data: NodeVersionedData }>;
/** The versioned edge events: each carries the full edge record as of its new version. */
export type EdgeVersionedEvent = Extract<GraphEvent, { data: EdgeVersionedData }>;

export function isNodeVersioned<E extends { type: string }>(e: E): e is Extract<E, NodeVersionedEvent> {
  return e.type === 'NodeCreated' || e.type === 'NodeUpdated' || e.type === 'NodeTombstoned' || e.type === 'NodeRestored';
}

export function isEdgeVersioned<E extends { type: string }>(e: E): e is Extract<E, EdgeVersionedEvent> {
  return e.type === 'EdgeCreated' || e.type === 'EdgeUpdated' || e.type === 'EdgeTombstoned' || e.type === 'EdgeRestored';
}
