import type { SessionEvent } from './session-state';

/** Unix seconds as the wire's ISO 8601 (null stays null). */
export function isoOf(t: number | null): string | null {
  return t === null ? null : new Date(Math.round(t * 1000)).toISOString();
}

/**
 * A session event as the event list and the stream show it (REFERENCE §16.9): its wire type
 * and data, or null for log events with no wire event (`AgentRunQueued`). The one mapping:
 * the projection numbers what this returns, and the live stream sends the same.
 */
/** A wire event: its type kept as the literal, so the union below tells each type's data. */
const wire = <T extends string, D extends Record<string, unknown>>(type: T, data: D) => ({ type, data });

export function sessionWireEvent(e: SessionEvent) {
  const d = e.data;
  switch (e.type) {
    case 'AgentSessionCreated':
      return wire('session.created', { agent_id: d.agent_id, title: e.data.title, metadata: e.data.metadata, node_uid: e.data.node_uid });
    case 'AgentMessageReceived':
      return wire('message.user', { message_id: e.data.message_id, content: e.data.content, sender: e.data.sender, queued: e.data.queued });
    case 'AgentRunQueued':
      return null;
    case 'AgentRunStarted':
      return wire('run.started', { run_id: e.data.run_id, trigger: e.data.trigger, model: e.data.model, trace_uid: e.data.trace_uid });
    case 'AgentInferenceCompleted':
      return wire('inference.completed', { step: e.data.step, model: e.data.model, stop_reason: e.data.stop_reason, usage: e.data.usage, credits: e.data.credits, duration_ms: e.data.duration_ms });
    case 'AgentMessageProduced':
      return wire('message.assistant', { message_id: e.data.message_id, content: e.data.content, interrupted: e.data.interrupted });
    case 'AgentToolCallRequested':
      return wire('tool.call', {
          tool_call_id: e.data.tool_call_id,
          name: e.data.name,
          source: e.data.source,
          connection_id: e.data.connection_id,
          tool_name: e.data.tool_name,
          arguments: e.data.arguments,
          execution_uid: e.data.execution_uid,
        });
    case 'AgentToolCallCompleted':
      return wire('tool.result', {
          tool_call_id: e.data.tool_call_id,
          name: e.data.name,
          status: e.data.status,
          result: e.data.result,
          error: e.data.error,
          duration_ms: e.data.duration_ms,
          execution_uid: e.data.execution_uid,
        });
    case 'AgentInputRequested':
      return wire('input.requested', { request_id: e.data.request_id, prompt: e.data.prompt, options: e.data.options, expires_at: isoOf(e.data.expires_at) });
    case 'AgentInputProvided':
      return wire('input.provided', { request_id: e.data.request_id, response: e.data.response, responded_by: e.data.responded_by, expired: e.data.expired });
    case 'AgentRunCompleted':
      return wire('run.completed', { run_id: e.data.run_id, stop_reason: e.data.stop_reason, steps: e.data.steps, tool_calls: e.data.tool_calls, usage: e.data.usage, credits: e.data.credits });
    case 'AgentRunFailed':
      return wire('run.failed', { run_id: e.data.run_id, error: e.data.error });
    case 'AgentRunCancelled':
      return wire('run.cancelled', { run_id: e.data.run_id, reason: e.data.reason, discarded_message_ids: e.data.discarded_message_ids });
    case 'AgentBudgetExhausted':
      return wire('budget.exhausted', { scope: e.data.scope, budget: e.data.budget, used: e.data.used, resets_at: isoOf(e.data.resets_at) });
    case 'AgentSessionArchived':
      return wire('session.archived', {});
    case 'ToolApprovalRequested':
      return wire('approval.requested', { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, reasons: e.data.approval.reasons, expires_at: isoOf(e.data.approval.expires_at) });
    case 'ToolApprovalResolved':
      return wire('approval.resolved', { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, status: e.data.status, resolved_by: e.data.resolved_by, reason: e.data.reason });
    case 'ToolApprovalExpired':
      return wire('approval.resolved', { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, status: 'expired', resolved_by: { kind: 'system', id: 'system' }, reason: 'expired' });
    case 'ToolApprovalCancelled':
      return wire('approval.resolved', { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, status: 'cancelled', resolved_by: { kind: 'system', id: 'system' }, reason: e.data.reason });
  }
}

/** Every event the session list and stream show, discriminated by `type`. */
export type SessionWireEvent = NonNullable<ReturnType<typeof sessionWireEvent>>;
