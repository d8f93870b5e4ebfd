/** Tables of the MCP read model (projections database; prefix `mcp_`). */
export const MCP_TABLES = ['mcp_connections', 'mcp_tools', 'mcp_drift', 'mcp_approvals'] as const;

export const MCP_DDL = `
CREATE TABLE IF NOT EXISTS mcp_connections (
  org_id TEXT NOT NULL, id TEXT NOT NULL, name TEXT NOT NULL, slug TEXT NOT NULL, url TEXT NOT NULL,
  status TEXT NOT NULL, protocol_version TEXT, server_info TEXT, instructions TEXT, auth TEXT NOT NULL,
  authorization_expires_at REAL, approval_mode TEXT NOT NULL, tool_approvals TEXT NOT NULL,
  approval_timeout_s INTEGER NOT NULL, call_timeout_s INTEGER NOT NULL, last_sync_at REAL, last_sync_id TEXT,
  last_error TEXT, created_by TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL,
  disconnected_at REAL, revision INTEGER NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX IF NOT EXISTS mcp_connections_created ON mcp_connections(org_id, created_at);
CREATE TABLE IF NOT EXISTS mcp_tools (
  org_id TEXT NOT NULL, connection_id TEXT NOT NULL, name TEXT NOT NULL, def TEXT NOT NULL, hash TEXT NOT NULL,
  approved_hash TEXT, drift_state TEXT NOT NULL, status TEXT NOT NULL, affordance_uid TEXT NOT NULL,
  first_seen_at REAL NOT NULL, changed_at REAL NOT NULL, last_seen_at REAL NOT NULL,
  PRIMARY KEY (org_id, connection_id, name)
);
CREATE TABLE IF NOT EXISTS mcp_drift (
  org_id TEXT NOT NULL, id TEXT NOT NULL, connection_id TEXT NOT NULL, tool_name TEXT NOT NULL, kind TEXT NOT NULL,
  changed_fields TEXT NOT NULL, previous_hash TEXT, hash TEXT, previous TEXT, current TEXT, sync_id TEXT NOT NULL,
  detected_at REAL NOT NULL, acknowledged_at REAL, acknowledged_by TEXT, position INTEGER NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX IF NOT EXISTS mcp_drift_connection ON mcp_drift(org_id, connection_id, tool_name);
CREATE TABLE IF NOT EXISTS mcp_approvals (
  org_id TEXT NOT NULL, id TEXT NOT NULL, status TEXT NOT NULL, kind TEXT NOT NULL, connection_id TEXT, connection_name TEXT,
  tool_name TEXT NOT NULL, model_name TEXT NOT NULL, affordance_uid TEXT, arguments TEXT, reasons TEXT NOT NULL,
  agent_id TEXT NOT NULL, agent_name TEXT NOT NULL, session_id TEXT NOT NULL, run_id TEXT NOT NULL, tool_call_id TEXT NOT NULL,
  requested_at REAL NOT NULL, expires_at REAL NOT NULL, resolved_at REAL, resolved_by TEXT, resolution_reason TEXT, scope TEXT NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX IF NOT EXISTS mcp_approvals_requested ON mcp_approvals(org_id, requested_at);
CREATE INDEX IF NOT EXISTS mcp_approvals_run ON mcp_approvals(run_id);
CREATE INDEX IF NOT EXISTS mcp_approvals_due ON mcp_approvals(status, expires_at);
`;
