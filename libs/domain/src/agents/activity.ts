import type { DomainEvent } from '../events/domain-event';

/** The activity feed (REFERENCE §16.12): what the organization's agents did, derived from the log. */
export const ACTIVITY_TYPES = [
  'agent.created', 'agent.updated', 'agent.paused', 'agent.resumed', 'agent.archived',
  'session.created', 'session.archived',
  'run.started', 'run.completed', 'run.failed', 'run.cancelled',
  'approval.requested', 'approval.resolved',
  'input.requested',
  'schedule.fired', 'schedule.skipped',
  'budget.exhausted',
  'mcp.drift', 'mcp.connection_status',
] as const;
export type ActivityType = (typeof ACTIVITY_TYPES)[number];

/** items older than this are dropped (and never listed) */
export const ACTIVITY_RETENTION_S = 90 * 86400;

/** An item before the feed numbers it; `agent_name` is filled by the read model from the agent. */
export interface ActivityDraft {
  org_id: string;
  type: ActivityType;
  agent_id: string | null;
  /** set when the event itself names the agent (agent events); else the read model's current name */
  agent_name: string | null;
  session_id: string | null;
  run_id: string | null;
  schedule_id: string | null;
  approval_id: string | null;
  connection_id: string | null;
  summary: string;
  data: Record<string, unknown>;
  at: number;
}

type Ids = Partial<Pick<ActivityDraft, 'agent_id' | 'agent_name' | 'session_id' | 'run_id' | 'schedule_id' | 'approval_id' | 'connection_id'>>;

function draft(org: string, type: ActivityType, at: number, ids: Ids, summary: string, data: Record<string, unknown>): ActivityDraft {
  return {
    org_id: org,
    type,
    agent_id: ids.agent_id ?? null,
    agent_name: ids.agent_name ?? null,
    session_id: ids.session_id ?? null,
    run_id: ids.run_id ?? null,
    schedule_id: ids.schedule_id ?? null,
    approval_id: ids.approval_id ?? null,
    connection_id: ids.connection_id ?? null,
    summary,
    data,
    at,
  };
}

const iso = (t: number) => new Date(Math.round(t * 1000)).toISOString();

/**
 * The activity items one logged event makes (most make none). The one mapping: the projection
 * numbers what this returns, and the live socket sends the rows it numbered. Approval items
 * come from the approval events: `ToolApprovalRequested` → `approval.requested`;
 * `ToolApprovalResolved`, `Expired` and `Cancelled` → `approval.resolved` with the outcome.
 */
export function activityOf(e: DomainEvent): ActivityDraft[] {
  switch (e.type) {
    case 'AgentCreated':
    case 'AgentUpdated':
    case 'AgentPaused':
    case 'AgentResumed':
    case 'AgentArchived': {
      const a = e.data.agent;
      const type = ({ AgentCreated: 'agent.created', AgentUpdated: 'agent.updated', AgentPaused: 'agent.paused', AgentResumed: 'agent.resumed', AgentArchived: 'agent.archived' } as const)[e.type];
      const verb = type.split('.')[1];
      return [draft(a.org_id, type, e.data.at, { agent_id: a.id, agent_name: a.name }, `Agent ${a.name} ${verb}`, { changed: e.data.changed ?? [], status: a.status, by: e.data.by })];
    }
    case 'AgentSessionCreated': {
      const d = e.data;
      return [draft(d.org_id, 'session.created', d.at, { agent_id: d.agent_id, session_id: d.session_id, schedule_id: d.schedule_id }, `Session ${d.title ? `“${d.title}” ` : ''}opened`, { title: d.title, source: d.source, node_uid: d.node_uid })];
    }
    case 'AgentSessionArchived': {
      const d = e.data;
      return [draft(d.org_id, 'session.archived', d.at, { agent_id: d.agent_id, session_id: d.session_id }, 'Session archived', {})];
    }
    case 'AgentRunStarted': {
      const d = e.data;
      return [draft(d.org_id, 'run.started', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id }, `Run started (${d.trigger.kind})`, { trigger: d.trigger, model: d.model, trace_uid: d.trace_uid })];
    }
    case 'AgentRunCompleted': {
      const d = e.data;
      return [draft(d.org_id, 'run.completed', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id }, `Run completed in ${d.steps} step${d.steps === 1 ? '' : 's'}`, { stop_reason: d.stop_reason, steps: d.steps, tool_calls: d.tool_calls, usage: d.usage, credits: d.credits })];
    }
    case 'AgentRunFailed': {
      const d = e.data;
      return [draft(d.org_id, 'run.failed', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id }, `Run failed: ${d.error.code}`, { error: d.error })];
    }
    case 'AgentRunCancelled': {
      const d = e.data;
      return [draft(d.org_id, 'run.cancelled', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id }, `Run cancelled (${d.reason})`, { reason: d.reason, discarded_message_ids: d.discarded_message_ids })];
    }
    case 'AgentInputRequested': {
      const d = e.data;
      return [draft(d.org_id, 'input.requested', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id }, 'The agent asks a question', { request_id: d.request_id, prompt: d.prompt, options: d.options, expires_at: iso(d.expires_at) })];
    }
    case 'AgentBudgetExhausted': {
      const d = e.data;
      return [draft(d.org_id, 'budget.exhausted', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id }, `The ${d.scope} credit budget is used up`, { scope: d.scope, budget: d.budget, used: d.used, resets_at: iso(d.resets_at) })];
    }
    case 'AgentScheduleFired': {
      const d = e.data;
      return [
        draft(d.org_id, 'schedule.fired', d.at, { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id, schedule_id: d.schedule_id }, `Schedule fired (${d.outcome})`, {
          outcome: d.outcome, scheduled_for: iso(d.scheduled_for), replaced_run_id: d.replaced_run_id,
        }),
      ];
    }
    case 'AgentScheduleSkipped': {
      const d = e.data;
      return [draft(d.org_id, 'schedule.skipped', d.at, { agent_id: d.agent_id, schedule_id: d.schedule_id }, `Schedule skipped (${d.outcome})`, { outcome: d.outcome, reason: d.reason, scheduled_for: iso(d.scheduled_for) })];
    }
    case 'ToolApprovalRequested': {
      const d = e.data;
      const a = d.approval;
      const ids = { agent_id: d.agent_id, agent_name: a.agent_name, session_id: d.session_id, run_id: d.run_id, approval_id: d.approval_id, connection_id: d.connection_id };
      return [
        draft(d.org_id, 'approval.requested', d.at, ids, `Approval asked for ${a.tool_name}`, {
          kind: a.kind, tool_name: a.tool_name, connection_name: a.connection_name, tool_call_id: d.tool_call_id, reasons: a.reasons, expires_at: iso(a.expires_at),
        }),
      ];
    }
    case 'ToolApprovalResolved':
    case 'ToolApprovalExpired':
    case 'ToolApprovalCancelled': {
      const d = e.data;
      const ids = { agent_id: d.agent_id, session_id: d.session_id, run_id: d.run_id, approval_id: d.approval_id, connection_id: d.connection_id };
      const outcome =
        e.type === 'ToolApprovalResolved'
          ? { status: e.data.status, resolved_by: e.data.resolved_by, reason: e.data.reason, scope: e.data.scope }
          : e.type === 'ToolApprovalExpired'
            ? { status: 'expired' }
            : { status: 'cancelled', reason: e.data.reason };
      return [draft(d.org_id, 'approval.resolved', d.at, ids, `Approval ${outcome.status}`, { tool_call_id: d.tool_call_id, ...outcome })];
    }
    case 'McpToolAdded':
    case 'McpToolChanged':
    case 'McpToolRemoved': {
      const d = e.data;
      if (!d.drift) return [];
      const name = e.type === 'McpToolRemoved' ? e.data.name : e.data.tool.name;
      return [
        draft(d.org_id, 'mcp.drift', d.at, { connection_id: d.connection_id }, `Tool ${name} ${d.drift.kind}`, {
          drift_id: d.drift.id, tool_name: name, kind: d.drift.kind, changed_fields: d.drift.changed_fields, sync_id: d.sync_id,
        }),
      ];
    }
    case 'McpConnectionStatusChanged': {
      const d = e.data;
      return [draft(d.org_id, 'mcp.connection_status', d.at, { connection_id: d.connection_id }, `Connection ${d.from} → ${d.to}`, { from: d.from, to: d.to, error: d.error ? { code: d.error.code, message: d.error.message } : null })];
    }
    default:
      return [];
  }
}
