import { McpEvent, RecordedEvent, unhandled } from '@strata/domain/events';
import { McpDrift, McpToolDef, ToolApprovalRecord } from '@strata/domain/mcp';

/** A connection row as the read model holds it (JSON members as values). */
export interface ConnectionRow {
  org_id: string;
  id: string;
  name: string;
  slug: string;
  url: string;
  status: string;
  protocol_version: string | null;
  server_info: Record<string, unknown> | null;
  instructions: string | null;
  auth: Record<string, unknown>;
  authorization_expires_at: number | null;
  approval_mode: string;
  tool_approvals: Record<string, string>;
  approval_timeout_s: number;
  call_timeout_s: number;
  last_sync_at: number | null;
  last_sync_id: string | null;
  last_error: { code: string; message: string; at: number } | null;
  created_by: string;
  created_at: number;
  updated_at: number;
  disconnected_at: number | null;
  revision: number;
}

export interface ToolRow {
  org_id: string;
  connection_id: string;
  name: string;
  def: McpToolDef;
  hash: string;
  approved_hash: string | null;
  drift_state: 'clean' | 'unacknowledged';
  status: 'active' | 'removed';
  affordance_uid: string;
  first_seen_at: number;
  changed_at: number;
  last_seen_at: number;
}

export interface DriftRow {
  org_id: string;
  id: string;
  connection_id: string;
  tool_name: string;
  kind: McpDrift['kind'];
  changed_fields: string[];
  previous_hash: string | null;
  hash: string | null;
  previous: McpDrift['previous'];
  current: McpDrift['current'];
  sync_id: string;
  detected_at: number;
  acknowledged_at: number | null;
  acknowledged_by: string | null;
  position: number;
}

type Key = { org_id: string; connection_id: string };

/** What one event changes in the MCP read model, storage-neutral. */
export type McpChange =
  | { op: 'connection.insert'; row: ConnectionRow }
  | { op: 'connection.patch'; key: Key; set: Partial<ConnectionRow> }
  | { op: 'tool.put'; row: ToolRow }
  | { op: 'tool.patch'; key: Key & { name: string }; set: Partial<ToolRow> }
  | { op: 'tools.seen'; key: Key; at: number }
  | { op: 'drift.insert'; row: DriftRow }
  | { op: 'drift.acknowledge'; key: Key; names: string[]; at: number; by: string }
  /** a tool-call approval asked for (REFERENCE §15.10) */
  | { op: 'approval.insert'; row: ToolApprovalRecord }
  /** a pending approval settled: resolved, expired or cancelled (a settled one stays as it is) */
  | { op: 'approval.settle'; key: { org_id: string; id: string }; set: Pick<ToolApprovalRecord, 'status' | 'resolved_at' | 'resolved_by' | 'resolution_reason' | 'scope'> }
  /** new OAuth tokens: the auth view's token fields */
  | { op: 'connection.tokens'; key: Key; token_expires_at: number | null; has_refresh_token: boolean; credential_fingerprint: string };

function driftRow(e: RecordedEvent, d: { org_id: string; connection_id: string; sync_id: string; at: number }, tool: string, drift: McpDrift): McpChange {
  return {
    op: 'drift.insert',
    row: { org_id: d.org_id, id: drift.id, connection_id: d.connection_id, tool_name: tool, kind: drift.kind, changed_fields: drift.changed_fields, previous_hash: drift.previous_hash, hash: drift.hash, previous: drift.previous, current: drift.current, sync_id: d.sync_id, detected_at: d.at, acknowledged_at: null, acknowledged_by: null, position: e.position },
  };
}

/**
 * The MCP projection, said once: each event's effect on connections, the tool registry and
 * drift (REFERENCE §15.2, §15.8). Every storage executes these changes; none looks at events.
 * Deterministic: only event data and positions.
 */
export function mcpChangesOf(event: RecordedEvent<McpEvent>): McpChange[] {
  if (isApprovalEvent(event)) return approvalChangesOf(event);
  const e = event as RecordedEvent<ConnectionEvent>;
  const key = { org_id: e.data.org_id, connection_id: e.data.connection_id };
  const touch: McpChange = { op: 'connection.patch', key, set: { updated_at: e.data.at, revision: e.revision } };
  switch (e.type) {
    case 'McpConnectionCreated': {
      const d = e.data;
      return [
        {
          op: 'connection.insert',
          row: {
            org_id: d.org_id, id: d.connection_id, name: d.name, slug: d.slug, url: d.url, status: d.status, protocol_version: d.protocol_version,
            server_info: d.server_info, instructions: d.instructions, auth: { ...d.auth }, authorization_expires_at: d.authorization_expires_at,
            approval_mode: d.approval_mode, tool_approvals: d.tool_approvals, approval_timeout_s: d.approval_timeout_s, call_timeout_s: d.call_timeout_s,
            last_sync_at: null, last_sync_id: null, last_error: null, created_by: d.created_by, created_at: d.at, updated_at: d.at, disconnected_at: null, revision: e.revision,
          },
        },
      ];
    }
    case 'McpConnectionSynced': {
      const d = e.data;
      return [
        { op: 'tools.seen', key, at: d.completed_at },
        { op: 'connection.patch', key, set: { last_sync_at: d.completed_at, last_sync_id: d.sync_id, protocol_version: d.protocol_version, server_info: d.server_info, instructions: d.instructions, updated_at: d.at, revision: e.revision } },
      ];
    }
    case 'McpToolAdded': {
      const d = e.data;
      return [
        {
          op: 'tool.put',
          row: {
            ...key, name: d.tool.name, def: d.tool, hash: d.tool.hash, approved_hash: d.drift ? null : d.tool.hash, drift_state: d.drift ? 'unacknowledged' : 'clean', status: 'active',
            affordance_uid: d.affordance_uid, first_seen_at: d.at, changed_at: d.at, last_seen_at: d.at,
          },
        },
        ...(d.drift ? [driftRow(e, d, d.tool.name, d.drift)] : []),
        touch,
      ];
    }
    case 'McpToolChanged': {
      const d = e.data;
      return [
        { op: 'tool.patch', key: { ...key, name: d.tool.name }, set: { def: d.tool, hash: d.tool.hash, drift_state: 'unacknowledged', changed_at: d.at, last_seen_at: d.at } },
        driftRow(e, d, d.tool.name, d.drift),
        touch,
      ];
    }
    case 'McpToolRemoved': {
      const d = e.data;
      return [{ op: 'tool.patch', key: { ...key, name: d.name }, set: { status: 'removed', changed_at: d.at } }, driftRow(e, d, d.name, d.drift), touch];
    }
    case 'McpConnectionStatusChanged': {
      const d = e.data;
      return [{ op: 'connection.patch', key, set: { status: d.to, last_error: d.error, ...(d.to === 'active' ? { authorization_expires_at: null } : {}), updated_at: d.at, revision: e.revision } }];
    }
    case 'McpConnectionUpdated': {
      const d = e.data;
      return [{ op: 'connection.patch', key, set: { ...d.changes, updated_at: d.at, revision: e.revision } }];
    }
    case 'McpDriftAcknowledged': {
      const d = e.data;
      return [
        ...d.tools.map((t): McpChange => ({ op: 'tool.patch', key: { ...key, name: t.name }, set: { approved_hash: t.hash, drift_state: 'clean' } })),
        { op: 'drift.acknowledge', key, names: d.tools.map((t) => t.name), at: d.at, by: d.acknowledged_by },
        touch,
      ];
    }
    case 'McpConnectionDisconnected': {
      const d = e.data;
      return [{ op: 'connection.patch', key, set: { status: 'disconnected', disconnected_at: d.at, authorization_expires_at: null, updated_at: d.at, revision: e.revision } }];
    }
    case 'McpAuthorizationStarted': {
      const d = e.data;
      return [{ op: 'connection.patch', key, set: { status: d.status, auth: { ...d.auth }, authorization_expires_at: d.expires_at, updated_at: d.at, revision: e.revision } }];
    }
    case 'McpConnectionAuthorized': {
      const d = e.data;
      return [
        {
          op: 'connection.patch',
          key,
          set: { status: 'active', auth: { ...d.auth }, authorization_expires_at: null, last_error: null, protocol_version: d.protocol_version, server_info: d.server_info, instructions: d.instructions, updated_at: d.at, revision: e.revision },
        },
      ];
    }
    case 'McpCredentialsReplaced': {
      const d = e.data;
      return [{ op: 'connection.patch', key, set: { status: 'active', auth: { ...d.auth }, authorization_expires_at: null, last_error: null, updated_at: d.at, revision: e.revision } }];
    }
    case 'McpTokenRefreshed': {
      const d = e.data;
      return [{ op: 'connection.tokens', key, token_expires_at: d.token_expires_at, has_refresh_token: d.has_refresh_token, credential_fingerprint: d.credential_fingerprint }, touch];
    }
    default:
      unhandled(e);
      return [];
  }
}

type ApprovalEvent = Extract<McpEvent, { type: 'ToolApprovalRequested' | 'ToolApprovalResolved' | 'ToolApprovalExpired' | 'ToolApprovalCancelled' }>;
type ConnectionEvent = Exclude<McpEvent, ApprovalEvent>;

function isApprovalEvent(e: RecordedEvent<McpEvent>): e is RecordedEvent<ApprovalEvent> {
  return e.type === 'ToolApprovalRequested' || e.type === 'ToolApprovalResolved' || e.type === 'ToolApprovalExpired' || e.type === 'ToolApprovalCancelled';
}

/** Approvals: inserted pending, then settled once. */
function approvalChangesOf(e: RecordedEvent<ApprovalEvent>): McpChange[] {
  const key = { org_id: e.data.org_id, id: e.data.approval_id };
  const system = { kind: 'system', id: 'system' };
  switch (e.type) {
    case 'ToolApprovalRequested':
      return [{ op: 'approval.insert', row: { ...e.data.approval, status: 'pending', resolved_at: null, resolved_by: null, resolution_reason: null } }];
    case 'ToolApprovalResolved':
      return [{ op: 'approval.settle', key, set: { status: e.data.status, resolved_at: e.data.at, resolved_by: e.data.resolved_by, resolution_reason: e.data.reason, scope: e.data.scope } }];
    case 'ToolApprovalExpired':
      return [{ op: 'approval.settle', key, set: { status: 'expired', resolved_at: e.data.at, resolved_by: system, resolution_reason: 'expired', scope: 'once' } }];
    case 'ToolApprovalCancelled':
      return [{ op: 'approval.settle', key, set: { status: 'cancelled', resolved_at: e.data.at, resolved_by: system, resolution_reason: e.data.reason, scope: 'once' } }];
    default:
      unhandled(e);
      return [];
  }
}
