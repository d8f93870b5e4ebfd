/** Tables of the governance read model (projections database; prefix `gov_`). */
export const GOVERNANCE_TABLES = ['gov_space_grants', 'gov_tool_grants', 'gov_settings', 'gov_policies', 'gov_request_approvals', 'gov_sync'] as const;

export const GOVERNANCE_DDL = `
CREATE TABLE IF NOT EXISTS gov_space_grants (
  org_id TEXT NOT NULL, space_uid TEXT NOT NULL, principal_uid TEXT NOT NULL, access TEXT NOT NULL,
  classification_ceiling TEXT, granted_by TEXT NOT NULL, granted_at REAL NOT NULL, updated_at REAL NOT NULL,
  position INTEGER NOT NULL,
  PRIMARY KEY (org_id, space_uid, principal_uid)
);
CREATE INDEX IF NOT EXISTS gov_space_grants_principal ON gov_space_grants(org_id, principal_uid);
CREATE TABLE IF NOT EXISTS gov_tool_grants (
  org_id TEXT NOT NULL, agent_id TEXT NOT NULL, affordance_uid TEXT NOT NULL, expires_at REAL, note TEXT,
  granted_by TEXT NOT NULL, granted_at REAL NOT NULL, updated_at REAL NOT NULL,
  PRIMARY KEY (org_id, agent_id, affordance_uid)
);
CREATE TABLE IF NOT EXISTS gov_settings (
  org_id TEXT PRIMARY KEY, settings TEXT NOT NULL, updated_at REAL NOT NULL, updated_by TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS gov_policies (
  org_id TEXT NOT NULL, uid TEXT NOT NULL, status TEXT NOT NULL, effect TEXT NOT NULL, priority INTEGER NOT NULL,
  created_at REAL NOT NULL, policy TEXT NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (org_id, uid)
);
-- the policies' change mark is read on every governed write: one index seek, not a scan
CREATE INDEX IF NOT EXISTS gov_policies_position ON gov_policies(org_id, position);
CREATE TABLE IF NOT EXISTS gov_request_approvals (
  org_id TEXT NOT NULL, approval_uid TEXT NOT NULL, principal_id TEXT NOT NULL, fingerprint TEXT, policy_uid TEXT,
  requested_at REAL NOT NULL, consumed_at REAL,
  PRIMARY KEY (org_id, approval_uid)
);
CREATE TABLE IF NOT EXISTS gov_sync (
  org_id TEXT PRIMARY KEY, last_synced_at REAL NOT NULL, last_synced_by TEXT NOT NULL, mirrored TEXT NOT NULL, mirror_versions TEXT NOT NULL
);
`;
