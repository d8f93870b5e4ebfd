import type { EventOf } from '../events/envelope';
import type {
  AgentBudgetExhaustedData,
  AgentInferenceCompletedData,
  AgentInputProvidedData,
  AgentInputRequestedData,
  AgentMessageProducedData,
  AgentMessageReceivedData,
  AgentRunCancelledData,
  AgentRunCompletedData,
  AgentRunFailedData,
  AgentRunQueuedData,
  AgentRunStartedData,
  AgentSessionArchivedData,
  AgentSessionCreatedData,
  AgentToolCallCompletedData,
  AgentToolCallRequestedData,
  RunTrigger,
  TokenCounts,
} from './agent-events';
import type { ToolApprovalCancelledData, ToolApprovalExpiredData, ToolApprovalRequestedData, ToolApprovalResolvedData } from '../mcp/approval-events';

export type RunStatus = 'queued' | 'running' | 'requires_action' | 'completed' | 'failed' | 'cancelled';
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'requires_action'];
export type SessionStatus = 'idle' | 'running' | 'requires_action' | 'archived';

export interface RunRecord {
  id: string;
  org_id: string;
  agent_id: string;
  session_id: string;
  status: RunStatus;
  trigger: RunTrigger;
  model: string;
  steps: number;
  tool_calls: number;
  usage: TokenCounts;
  credits: number;
  stop_reason: 'end_turn' | 'max_tokens' | null;
  error: { code: string; message: string } | null;
  trace_uid: string | null;
  /** its place among the session's runs, from 1; null for runs queued before it was kept */
  number?: number | null;
  /** approvals of this run still pending: while any is, the run `requires_action` */
  awaiting_approvals: number;
  queued_at: number;
  started_at: number | null;
  ended_at: number | null;
  /** when the run last went `running`; null while it waits (queued, on a person) or once it ended */
  running_since: number | null;
  /** seconds spent `running` before `running_since` */
  running_s: number;
}

/** a run `running` this long in all fails `run_timeout` (REFERENCE §16.6); time waiting on people does not count */
export const RUN_TIMEOUT_S = 30 * 60;
/** a question nobody answers expires after this long (REFERENCE §16.6) */
export const INPUT_TTL_S = 24 * 3600;

/** Seconds the run has spent `running` up to `now`. */
export function runningSeconds(r: Pick<RunRecord, 'status' | 'running_since' | 'running_s' | 'started_at'>, now: number): number {
  const since = r.running_since === undefined ? r.started_at : r.running_since;
  return (r.running_s ?? 0) + (r.status === 'running' && since !== null ? Math.max(0, now - since) : 0);
}

export interface PendingInput {
  request_id: string;
  run_id: string;
  tool_call_id: string;
  prompt: string;
  options: string[] | null;
  requested_at: number;
  expires_at: number;
}

export interface SessionRecord {
  id: string;
  org_id: string;
  agent_id: string;
  title: string | null;
  status: SessionStatus;
  node_uid: string;
  source: 'api' | 'schedule';
  schedule_id: string | null;
  metadata: Record<string, unknown> | null;
  created_by: { kind: string; id: string };
  current_run: string | null;
  /** runs waiting behind the current one, oldest first, with the message that made each */
  queued_runs: { run_id: string; message_id: string }[];
  last_run: string | null;
  pending_input: PendingInput | null;
  /** tool-call approvals of the current run still pending (REFERENCE §16.5) */
  pending_approvals: { approval_id: string; run_id: string; tool_call_id: string; /** absent in sessions folded before it was kept */ expires_at?: number }[];
  usage: TokenCounts & { credits: number };
  message_count: number;
  /** runs ever queued in the session (the next one's number is this + 1); absent in sessions folded before it was kept */
  run_count?: number;
  last_seq: number;
  created_at: number;
  updated_at: number;
  last_activity_at: number;
  archived_at: number | null;
}

/** The events of the session streams. */
export type SessionStreamEvent =
  | EventOf<'AgentSessionCreated', AgentSessionCreatedData>
  | EventOf<'AgentSessionArchived', AgentSessionArchivedData>
  | EventOf<'AgentMessageReceived', AgentMessageReceivedData>
  | EventOf<'AgentRunQueued', AgentRunQueuedData>
  | EventOf<'AgentRunStarted', AgentRunStartedData>
  | EventOf<'AgentInferenceCompleted', AgentInferenceCompletedData>
  | EventOf<'AgentMessageProduced', AgentMessageProducedData>
  | EventOf<'AgentToolCallRequested', AgentToolCallRequestedData>
  | EventOf<'AgentToolCallCompleted', AgentToolCallCompletedData>
  | EventOf<'AgentInputRequested', AgentInputRequestedData>
  | EventOf<'AgentInputProvided', AgentInputProvidedData>
  | EventOf<'AgentRunCompleted', AgentRunCompletedData>
  | EventOf<'AgentRunFailed', AgentRunFailedData>
  | EventOf<'AgentRunCancelled', AgentRunCancelledData>
  | EventOf<'AgentBudgetExhausted', AgentBudgetExhaustedData>;

/** The events a session folds: its own, and the approvals of its runs. */
export type SessionEvent =
  | SessionStreamEvent
  | EventOf<'ToolApprovalRequested', ToolApprovalRequestedData>
  | EventOf<'ToolApprovalResolved', ToolApprovalResolvedData>
  | EventOf<'ToolApprovalExpired', ToolApprovalExpiredData>
  | EventOf<'ToolApprovalCancelled', ToolApprovalCancelledData>;

/** The approval events a session folds (they live on the approvals' own streams). */
export const SESSION_APPROVAL_EVENT_TYPES: ReadonlySet<string> = new Set(['ToolApprovalRequested', 'ToolApprovalResolved', 'ToolApprovalExpired', 'ToolApprovalCancelled']);

/** Narrows a logged event to one of the approval events a session folds. */
export function isSessionApprovalEvent<E extends { type: string }>(e: E): e is Extract<E, Exclude<SessionEvent, SessionStreamEvent>> {
  return SESSION_APPROVAL_EVENT_TYPES.has(e.type);
}

export function newSession(d: AgentSessionCreatedData): SessionRecord {
  return {
    id: d.session_id,
    org_id: d.org_id,
    agent_id: d.agent_id,
    title: d.title,
    status: 'idle',
    node_uid: d.node_uid,
    source: d.source,
    schedule_id: d.schedule_id,
    metadata: d.metadata,
    created_by: d.created_by,
    current_run: null,
    queued_runs: [],
    last_run: null,
    pending_input: null,
    pending_approvals: [],
    usage: { input_tokens: 0, output_tokens: 0, credits: 0 },
    message_count: 0,
    run_count: 0,
    last_seq: 0,
    created_at: d.at,
    updated_at: d.at,
    last_activity_at: d.at,
    archived_at: null,
  };
}

export function newRun(d: AgentRunQueuedData): RunRecord {
  return {
    id: d.run_id,
    org_id: d.org_id,
    agent_id: d.agent_id,
    session_id: d.session_id,
    status: 'queued',
    trigger: d.trigger,
    model: d.model,
    steps: 0,
    tool_calls: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    credits: 0,
    stop_reason: null,
    error: null,
    trace_uid: null,
    number: d.number ?? null,
    awaiting_approvals: 0,
    queued_at: d.at,
    started_at: null,
    ended_at: null,
    running_since: null,
    running_s: 0,
  };
}

const ENDED: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export function runEnded(r: Pick<RunRecord, 'status'>): boolean {
  return ENDED.includes(r.status);
}

/** the events that end a run (`foldRun`): nothing else moves a run to an ended status */
export const RUN_END_EVENT_TYPES: ReadonlySet<string> = new Set(['AgentRunCompleted', 'AgentRunFailed', 'AgentRunCancelled']);

/** A run after one of its events; the same object when the event does not change it (or it already ended). */
export function foldRun(r: RunRecord, e: SessionEvent): RunRecord {
  const n = foldRunState(r, e);
  if (n === r || (n.status === 'running') === (r.status === 'running')) return n;
  // the run's running time is kept across its waits (REFERENCE §16.6's 30 minutes)
  const at = e.data.at;
  if (n.status === 'running') return { ...n, running_since: at };
  return { ...n, running_since: null, running_s: runningSeconds(r, at) };
}

function foldRunState(r: RunRecord, e: SessionEvent): RunRecord {
  if (runEnded(r)) return r;
  switch (e.type) {
    case 'AgentRunStarted':
      return { ...r, status: 'running', trace_uid: e.data.trace_uid, started_at: e.data.at };
    case 'AgentInferenceCompleted':
      return {
        ...r,
        steps: Math.max(r.steps, e.data.step),
        usage: { input_tokens: r.usage.input_tokens + e.data.usage.input_tokens, output_tokens: r.usage.output_tokens + e.data.usage.output_tokens },
        credits: r.credits + e.data.credits,
      };
    case 'AgentToolCallRequested':
      return { ...r, tool_calls: r.tool_calls + 1 };
    case 'AgentInputRequested':
      return { ...r, status: 'requires_action' };
    case 'AgentInputProvided':
      return r.status === 'requires_action' && !r.awaiting_approvals ? { ...r, status: 'running' } : r;
    case 'ToolApprovalRequested':
      return { ...r, status: 'requires_action', awaiting_approvals: (r.awaiting_approvals ?? 0) + 1 };
    case 'ToolApprovalResolved':
    case 'ToolApprovalExpired':
    case 'ToolApprovalCancelled': {
      // the run goes on once every decision of its turn is settled (REFERENCE §16.5)
      const awaiting = Math.max(0, (r.awaiting_approvals ?? 0) - 1);
      return { ...r, awaiting_approvals: awaiting, status: r.status === 'requires_action' && awaiting === 0 ? 'running' : r.status };
    }
    case 'AgentRunCompleted':
      return { ...r, status: 'completed', stop_reason: e.data.stop_reason, ended_at: e.data.at };
    case 'AgentRunFailed':
      return { ...r, status: 'failed', error: e.data.error, ended_at: e.data.at };
    case 'AgentRunCancelled':
      return { ...r, status: 'cancelled', ended_at: e.data.at };
    default:
      return r;
  }
}

/** Session status from its current run (REFERENCE §16.6): `queued` counts as `running`. */
export function sessionStatus(s: Pick<SessionRecord, 'archived_at'>, current: Pick<RunRecord, 'status'> | null): SessionStatus {
  if (s.archived_at !== null) return 'archived';
  if (!current || runEnded(current)) return 'idle';
  return current.status === 'requires_action' ? 'requires_action' : 'running';
}

/**
 * A session after one of its events. `runAfter` is the event's run as folded by `foldRun`
 * (null for events without a run); `seq` the number the session's event list gives the event.
 */
export function foldSession(s: SessionRecord, e: SessionEvent, seq: number, runAfter: RunRecord | null, runOf: (id: string) => RunRecord | null): SessionRecord {
  const n: SessionRecord = { ...s, last_seq: seq, updated_at: e.data.at, last_activity_at: e.data.at };
  switch (e.type) {
    case 'AgentSessionArchived':
      n.archived_at = e.data.at;
      n.pending_input = null;
      break;
    case 'AgentMessageReceived':
      n.message_count += 1;
      break;
    case 'AgentRunStarted':
      if (e.data.session_node_uid) n.node_uid = e.data.session_node_uid;
      break;
    case 'AgentMessageProduced':
      n.message_count += 1;
      break;
    case 'AgentRunQueued':
      if (n.run_count !== undefined) n.run_count += 1;
      if (n.current_run === null) n.current_run = e.data.run_id;
      else n.queued_runs = [...n.queued_runs, { run_id: e.data.run_id, message_id: e.data.trigger.message_id }];
      break;
    case 'AgentInferenceCompleted':
      n.usage = {
        input_tokens: n.usage.input_tokens + e.data.usage.input_tokens,
        output_tokens: n.usage.output_tokens + e.data.usage.output_tokens,
        credits: n.usage.credits + e.data.credits,
      };
      break;
    case 'AgentInputRequested':
      n.pending_input = {
        request_id: e.data.request_id,
        run_id: e.data.run_id,
        tool_call_id: e.data.tool_call_id,
        prompt: e.data.prompt,
        options: e.data.options,
        requested_at: e.data.at,
        expires_at: e.data.expires_at,
      };
      break;
    case 'AgentInputProvided':
      if (n.pending_input?.request_id === e.data.request_id) n.pending_input = null;
      break;
    case 'ToolApprovalRequested':
      n.pending_approvals = [...(n.pending_approvals ?? []), { approval_id: e.data.approval_id, run_id: e.data.run_id, tool_call_id: e.data.tool_call_id, expires_at: e.data.approval.expires_at }];
      break;
    case 'ToolApprovalResolved':
    case 'ToolApprovalExpired':
    case 'ToolApprovalCancelled':
      n.pending_approvals = (n.pending_approvals ?? []).filter((p) => p.approval_id !== e.data.approval_id);
      break;
    case 'AgentRunCompleted':
    case 'AgentRunFailed':
    case 'AgentRunCancelled': {
      const id = e.data.run_id;
      const discarded = e.type === 'AgentRunCancelled' ? new Set(e.data.discarded_message_ids) : new Set<string>();
      n.queued_runs = n.queued_runs.filter((q) => q.run_id !== id && !discarded.has(q.message_id));
      if (n.pending_input?.run_id === id) n.pending_input = null;
      n.pending_approvals = (n.pending_approvals ?? []).filter((p) => p.run_id !== id);
      if (n.current_run === id) {
        n.last_run = id;
        const next = n.queued_runs[0];
        n.current_run = next ? next.run_id : null;
        n.queued_runs = n.queued_runs.slice(next ? 1 : 0);
      }
      break;
    }
    default:
      break;
  }
  const current = n.current_run === null ? null : n.current_run === runAfter?.id ? runAfter : runOf(n.current_run);
  n.status = sessionStatus(n, current);
  return n;
}
