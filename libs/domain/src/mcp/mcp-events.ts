/**
 * MCP connection events (REFERENCE §15). One stream per connection,
 * `mcpconn-<org>:<connection_id>`. No secret ever travels in them: credentials are named by
 * `credential_fingerprint` (12 hex of their SHA-256) and `hint` only. Times are Unix seconds.
 */
export const McpEventTypes = {
  McpConnectionCreated: 'McpConnectionCreated',
  McpConnectionSynced: 'McpConnectionSynced',
  McpToolAdded: 'McpToolAdded',
  McpToolChanged: 'McpToolChanged',
  McpToolRemoved: 'McpToolRemoved',
  McpConnectionStatusChanged: 'McpConnectionStatusChanged',
  McpConnectionUpdated: 'McpConnectionUpdated',
  McpDriftAcknowledged: 'McpDriftAcknowledged',
  McpConnectionDisconnected: 'McpConnectionDisconnected',
  McpAuthorizationStarted: 'McpAuthorizationStarted',
  McpConnectionAuthorized: 'McpConnectionAuthorized',
  McpCredentialsReplaced: 'McpCredentialsReplaced',
  McpTokenRefreshed: 'McpTokenRefreshed',
  ToolApprovalRequested: 'ToolApprovalRequested',
  ToolApprovalResolved: 'ToolApprovalResolved',
  ToolApprovalExpired: 'ToolApprovalExpired',
  ToolApprovalCancelled: 'ToolApprovalCancelled',
} as const;
export type McpEventType = (typeof McpEventTypes)[keyof typeof McpEventTypes];

export const McpStreams = {
  connection: (org: string, id: string) => `mcpconn-${org}:${id}`,
};
/** Prefixes of the MCP streams: small, mirrored beside the accounts in servers mode. */
export const MCP_STREAM_PREFIXES: readonly string[] = ['mcpconn-', 'toolapproval-'];

export type McpConnectionStatus = 'active' | 'pending_auth' | 'error' | 'disconnected';
export type McpApprovalMode = 'always' | 'never' | 'per_tool' | 'on_drift';
export type McpRegistration = 'preregistered' | 'client_metadata_document' | 'dynamic';

/** What may be said about OAuth credentials. */
export interface McpOAuthView {
  authorization_server: string;
  client_id: string;
  registration: McpRegistration;
  scopes: string[];
  token_expires_at: number | null;
  has_refresh_token: boolean;
}

/** What may be said about a connection's credentials. */
export interface McpAuthView {
  type: 'none' | 'bearer' | 'headers' | 'oauth';
  configured: boolean;
  hint: string | null;
  header_names: string[];
  /** 12 hex of the SHA-256 of the secret material; null without any */
  credential_fingerprint: string | null;
  oauth: McpOAuthView | null;
}

/** A tool's definition as kept (after the §15.5 limits), with its hash and screening. */
export interface McpToolDef {
  name: string;
  title: string | null;
  description: string | null;
  input_schema: Record<string, unknown> | null;
  output_schema: Record<string, unknown> | null;
  annotations: Record<string, unknown> | null;
  hash: string;
  warnings: string[];
}

export type McpToolFields = Pick<McpToolDef, 'title' | 'description' | 'input_schema' | 'output_schema' | 'annotations'>;

/** A drift event as a sync detects it (§15.8); `detected_at` and `sync_id` are the event's. */
export interface McpDrift {
  id: string;
  kind: 'added' | 'changed' | 'removed';
  changed_fields: string[];
  previous_hash: string | null;
  hash: string | null;
  previous: McpToolFields | null;
  current: McpToolFields | null;
}

export interface McpErrorInfo {
  code: string;
  message: string;
  at: number;
}

export interface McpConnectionCreatedData {
  org_id: string;
  connection_id: string;
  name: string;
  slug: string;
  url: string;
  status: 'active' | 'pending_auth';
  auth: McpAuthView;
  approval_mode: McpApprovalMode;
  tool_approvals: Record<string, 'always' | 'never'>;
  approval_timeout_s: number;
  call_timeout_s: number;
  protocol_version: string | null;
  server_info: Record<string, unknown> | null;
  instructions: string | null;
  /** OAuth: the end of the authorization window; null otherwise */
  authorization_expires_at: number | null;
  created_by: string;
  at: number;
}

export interface McpConnectionSyncedData {
  org_id: string;
  connection_id: string;
  sync_id: string;
  started_at: number;
  completed_at: number;
  tools_count: number;
  added: string[];
  changed: string[];
  removed: string[];
  /** the first successful sync: no drift recorded */
  baseline: boolean;
  protocol_version: string | null;
  server_info: Record<string, unknown> | null;
  instructions: string | null;
  at: number;
}

export interface McpToolAddedData {
  org_id: string;
  connection_id: string;
  sync_id: string;
  tool: McpToolDef;
  affordance_uid: string;
  /** null on the baseline */
  drift: McpDrift | null;
  at: number;
}

export interface McpToolChangedData {
  org_id: string;
  connection_id: string;
  sync_id: string;
  tool: McpToolDef;
  drift: McpDrift;
  at: number;
}

export interface McpToolRemovedData {
  org_id: string;
  connection_id: string;
  sync_id: string;
  name: string;
  drift: McpDrift;
  at: number;
}

export interface McpConnectionStatusChangedData {
  org_id: string;
  connection_id: string;
  from: McpConnectionStatus;
  to: McpConnectionStatus;
  error: McpErrorInfo | null;
  at: number;
}

export interface McpConnectionChanges {
  name?: string;
  approval_mode?: McpApprovalMode;
  tool_approvals?: Record<string, 'always' | 'never'>;
  approval_timeout_s?: number;
  call_timeout_s?: number;
}

export interface McpConnectionUpdatedData {
  org_id: string;
  connection_id: string;
  changes: McpConnectionChanges;
  updated_by: string;
  at: number;
}

export interface McpDriftAcknowledgedData {
  org_id: string;
  connection_id: string;
  /** each tool acknowledged, at the hash it now has */
  tools: { name: string; hash: string | null }[];
  acknowledged_by: string;
  at: number;
}

export interface McpConnectionDisconnectedData {
  org_id: string;
  connection_id: string;
  disconnected_by: string;
  at: number;
}

export interface McpAuthorizationStartedData {
  org_id: string;
  connection_id: string;
  auth: McpAuthView;
  expires_at: number;
  /** `pending_auth` unless a usable token remains (reauthorize) */
  status: McpConnectionStatus;
  at: number;
}

export interface McpConnectionAuthorizedData {
  org_id: string;
  connection_id: string;
  auth: McpAuthView;
  protocol_version: string | null;
  server_info: Record<string, unknown> | null;
  instructions: string | null;
  at: number;
}

export interface McpCredentialsReplacedData {
  org_id: string;
  connection_id: string;
  auth: McpAuthView;
  replaced_by: string;
  at: number;
}

export interface McpTokenRefreshedData {
  org_id: string;
  connection_id: string;
  token_expires_at: number | null;
  has_refresh_token: boolean;
  credential_fingerprint: string;
  at: number;
}
