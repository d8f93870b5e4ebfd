import type { AgentRecord } from './agent-record';

/**
 * Managed-agent events (REFERENCE §16.14). An agent's configuration lives on `agent-<org>:<id>`
 * (each event carries the whole record); everything that happens in a session, runs included,
 * on `agent-session-<org>:<sid>`, in the order the session's event list numbers (`seq`).
 */
export const AgentEventTypes = {
  AgentCreated: 'AgentCreated',
  AgentUpdated: 'AgentUpdated',
  AgentPaused: 'AgentPaused',
  AgentResumed: 'AgentResumed',
  AgentArchived: 'AgentArchived',
  AgentNameClaimed: 'AgentNameClaimed',
  AgentPlanClaimed: 'AgentPlanClaimed',
  AgentSessionCreated: 'AgentSessionCreated',
  AgentSessionArchived: 'AgentSessionArchived',
  AgentMessageReceived: 'AgentMessageReceived',
  AgentRunQueued: 'AgentRunQueued',
  AgentRunStarted: 'AgentRunStarted',
  AgentInferenceCompleted: 'AgentInferenceCompleted',
  AgentMessageProduced: 'AgentMessageProduced',
  AgentToolCallRequested: 'AgentToolCallRequested',
  AgentToolCallCompleted: 'AgentToolCallCompleted',
  AgentInputRequested: 'AgentInputRequested',
  AgentInputProvided: 'AgentInputProvided',
  AgentRunCompleted: 'AgentRunCompleted',
  AgentRunFailed: 'AgentRunFailed',
  AgentRunCancelled: 'AgentRunCancelled',
  AgentBudgetExhausted: 'AgentBudgetExhausted',
  AgentScheduleCreated: 'AgentScheduleCreated',
  AgentScheduleUpdated: 'AgentScheduleUpdated',
  AgentScheduleDeleted: 'AgentScheduleDeleted',
  AgentScheduleFired: 'AgentScheduleFired',
  AgentScheduleSkipped: 'AgentScheduleSkipped',
} as const;
export type AgentEventType = (typeof AgentEventTypes)[keyof typeof AgentEventTypes];

export const AgentStreams = {
  agent: (org: string, id: string) => `agent-${org}:${id}`,
  session: (org: string, sid: string) => `agent-session-${org}:${sid}`,
  schedule: (org: string, id: string) => `agent-schedule-${org}:${id}`,
  /** one per name key (its digest): appended at the revision read, it serialises concurrent claims of a name */
  name: (org: string, digest: string) => `agentname-${org}:${digest}`,
  /** one per organization and plan limit: appended at the revision read, it serialises the writes a limit counts (REFERENCE §17) */
  plan: (org: string, limit: PlanClaimLimit) => `agentplan-${org}:${limit}`,
};

/** the plan limits of REFERENCE §17 whose count replicas decide together */
export type PlanClaimLimit = 'agents' | 'schedules' | 'concurrent_runs';

/**
 * A write that a plan limit counts (an agent or a schedule created, a run started). Servers
 * mode only: like AgentNameClaimed, a lock between replicas deciding on their own mirrors, not
 * state; what it counts is in the counted things' own events (a run's slot frees when its run
 * ends, whatever replica or crash ended it).
 */
export interface AgentPlanClaimedData {
  org_id: string;
  limit: PlanClaimLimit;
  /** the agent, schedule or run the claim was made for */
  ref_id: string;
  at: number;
}

/**
 * An agent took a name (create, rename). Servers mode only: a lock between replicas deciding
 * on their own mirrors, not state; the read model follows the agent's own events.
 */
export interface AgentNameClaimedData {
  org_id: string;
  agent_id: string;
  name_key: string;
  at: number;
}

/** An agent's whole record as of the change; `changed` names the fields a PATCH moved. */
export interface AgentChangedData {
  agent: AgentRecord;
  changed?: string[];
  by: string;
  at: number;
}

/** Who sent a message or answered a question. */
export interface Sender {
  kind: 'user' | 'api_key' | 'schedule';
  id: string;
}

/** What every session event names. */
export interface SessionEventBase {
  org_id: string;
  agent_id: string;
  session_id: string;
  run_id: string | null;
  at: number;
}

export interface AgentSessionCreatedData extends SessionEventBase {
  title: string | null;
  metadata: Record<string, unknown> | null;
  node_uid: string;
  source: 'api' | 'schedule';
  schedule_id: string | null;
  created_by: { kind: string; id: string };
}

export interface AgentSessionArchivedData extends SessionEventBase {
  by: string;
}

export interface AgentMessageReceivedData extends SessionEventBase {
  message_id: string;
  content: string;
  metadata: Record<string, unknown> | null;
  sender: Sender;
  /** true when it waits behind an earlier run of the session */
  queued: boolean;
}

export interface RunTrigger {
  kind: 'message' | 'schedule';
  message_id: string;
}

export interface AgentRunQueuedData extends SessionEventBase {
  run_id: string;
  trigger: RunTrigger;
  model: string;
  /** the run's place among its session's runs, from 1 (its Trace's label); absent on runs queued before it was kept */
  number?: number;
}

export interface AgentRunStartedData extends SessionEventBase {
  run_id: string;
  trigger: RunTrigger;
  model: string;
  trace_uid: string;
  /** the session's new Session node, when the run recreated a tombstoned or purged one (REFERENCE §16.10) */
  session_node_uid?: string;
}

export interface TokenCounts {
  input_tokens: number;
  output_tokens: number;
}

export interface AgentInferenceCompletedData extends SessionEventBase {
  run_id: string;
  step: number;
  model: string;
  stop_reason: 'end_turn' | 'tool_use' | 'max_tokens';
  usage: TokenCounts;
  credits: number;
  duration_ms: number;
  /** the text that came with tool calls (the model's own words, kept so a resumed run replays its turn) */
  text: string;
}

export interface AgentMessageProducedData extends SessionEventBase {
  run_id: string;
  message_id: string;
  content: string;
  interrupted: boolean;
}

export interface AgentToolCallRequestedData extends SessionEventBase {
  run_id: string;
  step: number;
  tool_call_id: string;
  name: string;
  source: 'builtin' | 'mcp';
  connection_id: string | null;
  tool_name: string;
  arguments: unknown;
  execution_uid: string | null;
}

export interface AgentToolCallCompletedData extends SessionEventBase {
  run_id: string;
  tool_call_id: string;
  name: string;
  status: 'ok' | 'error' | 'denied';
  result: unknown;
  error: { code: string; message: string } | null;
  duration_ms: number;
  execution_uid: string | null;
}

export interface AgentInputRequestedData extends SessionEventBase {
  run_id: string;
  request_id: string;
  tool_call_id: string;
  prompt: string;
  options: string[] | null;
  expires_at: number;
}

export interface AgentInputProvidedData extends SessionEventBase {
  run_id: string;
  request_id: string;
  tool_call_id: string;
  response: string | null;
  responded_by: { kind: string; id: string } | null;
  expired: boolean;
}

export interface AgentRunCompletedData extends SessionEventBase {
  run_id: string;
  stop_reason: 'end_turn' | 'max_tokens';
  steps: number;
  tool_calls: number;
  usage: TokenCounts;
  credits: number;
}

export interface AgentRunFailedData extends SessionEventBase {
  run_id: string;
  error: { code: string; message: string };
}

export type CancelReason = 'interrupted' | 'session_archived' | 'agent_paused' | 'agent_archived' | 'plan_changed';

export interface AgentRunCancelledData extends SessionEventBase {
  run_id: string;
  reason: CancelReason;
  discarded_message_ids: string[];
}

export interface AgentBudgetExhaustedData extends SessionEventBase {
  scope: 'agent' | 'organization';
  budget: number;
  used: number;
  resets_at: number;
  /** UTC day the notice is for: one per agent and day */
  day: string;
}
