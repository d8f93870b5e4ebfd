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
export function sessionWireEvent(e: SessionEvent): { type: string; data: Record<string, unknown> } | null {
  const d = e.data;
  switch (e.type) {
    case 'AgentSessionCreated':
      return { type: 'session.created', data: { agent_id: d.agent_id, title: e.data.title, metadata: e.data.metadata, node_uid: e.data.node_uid } };
    case 'AgentMessageReceived':
      return { type: 'message.user', data: { message_id: e.data.message_id, content: e.data.content, sender: e.data.sender, queued: e.data.queued } };
    case 'AgentRunQueued':
      return null;
    case 'AgentRunStarted':
      return { type: 'run.started', data: { run_id: e.data.run_id, trigger: e.data.trigger, model: e.data.model, trace_uid: e.data.trace_uid } };
    case 'AgentInferenceCompleted':
      return {
        type: 'inference.completed',
        data: { step: e.data.step, model: e.data.model, stop_reason: e.data.stop_reason, usage: e.data.usage, credits: e.data.credits, duration_ms: e.data.duration_ms },
      };
    case 'AgentMessageProduced':
      return { type: 'message.assistant', data: { message_id: e.data.message_id, content: e.data.content, interrupted: e.data.interrupted } };
    case 'AgentToolCallRequested':
      return {
        type: 'tool.call',
        data: {
          tool_call_id: e.data.tool_call_id,
          name: e.data.name,
          source: e.data.source,
          connection_id: e.data.connection_id,
          tool_name: e.data.tool_name,
          arguments: e.data.arguments,
          execution_uid: e.data.execution_uid,
        },
      };
    case 'AgentToolCallCompleted':
      return {
        type: 'tool.result',
        data: {
          tool_call_id: e.data.tool_call_id,
          name: e.data.name,
          status: e.data.status,
          result: e.data.result,
          error: e.data.error,
          duration_ms: e.data.duration_ms,
          execution_uid: e.data.execution_uid,
        },
      };
    case 'AgentInputRequested':
      return { type: 'input.requested', data: { request_id: e.data.request_id, prompt: e.data.prompt, options: e.data.options, expires_at: isoOf(e.data.expires_at) } };
    case 'AgentInputProvided':
      return { type: 'input.provided', data: { request_id: e.data.request_id, response: e.data.response, responded_by: e.data.responded_by, expired: e.data.expired } };
    case 'AgentRunCompleted':
      return {
        type: 'run.completed',
        data: { run_id: e.data.run_id, stop_reason: e.data.stop_reason, steps: e.data.steps, tool_calls: e.data.tool_calls, usage: e.data.usage, credits: e.data.credits },
      };
    case 'AgentRunFailed':
      return { type: 'run.failed', data: { run_id: e.data.run_id, error: e.data.error } };
    case 'AgentRunCancelled':
      return { type: 'run.cancelled', data: { run_id: e.data.run_id, reason: e.data.reason, discarded_message_ids: e.data.discarded_message_ids } };
    case 'AgentBudgetExhausted':
      return { type: 'budget.exhausted', data: { scope: e.data.scope, budget: e.data.budget, used: e.data.used, resets_at: isoOf(e.data.resets_at) } };
    case 'AgentSessionArchived':
      return { type: 'session.archived', data: {} };
    case 'ToolApprovalRequested':
      return { type: 'approval.requested', data: { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, reasons: e.data.approval.reasons, expires_at: isoOf(e.data.approval.expires_at) } };
    case 'ToolApprovalResolved':
      return { type: 'approval.resolved', data: { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, status: e.data.status, resolved_by: e.data.resolved_by, reason: e.data.reason } };
    case 'ToolApprovalExpired':
      return { type: 'approval.resolved', data: { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, status: 'expired', resolved_by: { kind: 'system', id: 'system' }, reason: 'expired' } };
    case 'ToolApprovalCancelled':
      return { type: 'approval.resolved', data: { approval_id: e.data.approval_id, tool_call_id: e.data.tool_call_id, status: 'cancelled', resolved_by: { kind: 'system', id: 'system' }, reason: e.data.reason } };
  }
}
