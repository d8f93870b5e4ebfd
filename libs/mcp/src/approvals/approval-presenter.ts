import type { ToolApprovalRecord } from '@strata/domain/mcp';

function iso(t: number | null): string | null {
  return t === null ? null : new Date(Math.round(t * 1000)).toISOString();
}

/** An approval on the wire (REFERENCE §15.10): `/v1` times as ISO 8601. */
export function presentApproval(a: ToolApprovalRecord) {
  return {
    id: a.id,
    status: a.status,
    kind: a.kind,
    connection_id: a.connection_id,
    connection_name: a.connection_name,
    tool_name: a.tool_name,
    model_name: a.model_name,
    affordance_uid: a.affordance_uid,
    arguments: a.arguments,
    reasons: a.reasons,
    agent_id: a.agent_id,
    agent_name: a.agent_name,
    session_id: a.session_id,
    run_id: a.run_id,
    tool_call_id: a.tool_call_id,
    requested_at: iso(a.requested_at),
    expires_at: iso(a.expires_at),
    resolved_at: iso(a.resolved_at),
    resolved_by: a.resolved_by,
    resolution_reason: a.resolution_reason,
    scope: a.scope,
  };
}
