/**
 * Tool-call approvals (REFERENCE §15.10): one stream per approval, `toolapproval-<org>:<id>`,
 * so a resolution, an expiry and a cancellation race on its revision and only one of them
 * lands. Every event names the agent, session, run and tool call it gates, so the agents'
 * session list, the activity feed and the MCP approvals list derive from the same events.
 */
export type ToolApprovalStatus = 'pending' | 'approved' | 'denied' | 'expired' | 'cancelled';
export type ToolApprovalKind = 'mcp_tool' | 'builtin_tool';
export type ToolApprovalScope = 'once' | 'session';
/** why a call needs a person: the connection's mode (`always`), `per_tool`, drift, or a policy */
export interface ToolApprovalReason {
  source: 'connection_mode' | 'per_tool' | 'drift' | 'policy';
  policy_uid?: string;
}
export type ToolApprovalCancelReason = 'interrupted' | 'session_archived' | 'agent_paused' | 'agent_archived' | 'plan_changed' | 'connection_deleted';

/** The approval as the events build it; times in Unix seconds. `id` is also its Approval node's uid. */
export interface ToolApprovalRecord {
  id: string;
  org_id: string;
  status: ToolApprovalStatus;
  kind: ToolApprovalKind;
  connection_id: string | null;
  connection_name: string | null;
  tool_name: string;
  model_name: string;
  affordance_uid: string | null;
  arguments: unknown;
  reasons: ToolApprovalReason[];
  agent_id: string;
  agent_name: string;
  session_id: string;
  run_id: string;
  tool_call_id: string;
  requested_at: number;
  expires_at: number;
  resolved_at: number | null;
  resolved_by: { kind: string; id: string } | null;
  resolution_reason: string | null;
  scope: ToolApprovalScope;
}

export const ToolApprovalStreams = {
  approval: (org: string, id: string) => `toolapproval-${org}:${id}`,
};

/** What every approval event names. */
export interface ToolApprovalEventBase {
  org_id: string;
  approval_id: string;
  agent_id: string;
  session_id: string;
  run_id: string;
  tool_call_id: string;
  connection_id: string | null;
  at: number;
}

export interface ToolApprovalRequestedData extends ToolApprovalEventBase {
  approval: ToolApprovalRecord;
}

export interface ToolApprovalResolvedData extends ToolApprovalEventBase {
  status: 'approved' | 'denied';
  resolved_by: { kind: string; id: string };
  reason: string | null;
  scope: ToolApprovalScope;
}

export type ToolApprovalExpiredData = ToolApprovalEventBase;

export interface ToolApprovalCancelledData extends ToolApprovalEventBase {
  reason: ToolApprovalCancelReason;
}
