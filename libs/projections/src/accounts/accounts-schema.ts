/** Tables of the accounts read model (projections database; prefix `acct_`). */
export const ACCOUNT_TABLES = [
  'acct_users',
  'acct_orgs',
  'acct_members',
  'acct_keys',
  'acct_refresh_tokens',
  'acct_refresh_families',
  'acct_credits',
  'acct_llm_usage',
] as const;

export const ACCOUNTS_DDL = `
CREATE TABLE IF NOT EXISTS acct_users (
  user_id TEXT PRIMARY KEY, email TEXT NOT NULL, email_norm TEXT NOT NULL UNIQUE, name TEXT,
  password_hash TEXT NOT NULL, created_at REAL NOT NULL, revision INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS acct_orgs (
  org_id TEXT PRIMARY KEY, name TEXT NOT NULL, plan TEXT NOT NULL, created_by TEXT NOT NULL,
  created_at REAL NOT NULL, plan_changed_at REAL, revision INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS acct_members (
  org_id TEXT NOT NULL, user_id TEXT NOT NULL, role TEXT NOT NULL, joined_at REAL NOT NULL,
  position INTEGER NOT NULL, PRIMARY KEY (org_id, user_id)
);
CREATE INDEX IF NOT EXISTS acct_members_user ON acct_members(user_id, position);
CREATE TABLE IF NOT EXISTS acct_keys (
  key_id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name TEXT NOT NULL, prefix TEXT NOT NULL,
  secret_sha256 TEXT NOT NULL UNIQUE, scopes TEXT NOT NULL, expires_at REAL,
  space_uids TEXT, project_uids TEXT, agent_id TEXT, created_by TEXT NOT NULL, created_at REAL NOT NULL,
  rotated_from TEXT, replaced_by TEXT, overlap_until REAL, revoked_at REAL, revoked_by TEXT,
  position INTEGER NOT NULL, revision INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS acct_keys_org ON acct_keys(org_id, created_at);
CREATE TABLE IF NOT EXISTS acct_refresh_tokens (
  token_id TEXT PRIMARY KEY, family_id TEXT NOT NULL, user_id TEXT NOT NULL, token_sha256 TEXT NOT NULL,
  issued_at REAL NOT NULL, expires_at REAL NOT NULL, used_at REAL, replaced_by TEXT
);
CREATE INDEX IF NOT EXISTS acct_refresh_tokens_user ON acct_refresh_tokens(user_id, expires_at);
CREATE TABLE IF NOT EXISTS acct_refresh_families (
  family_id TEXT PRIMARY KEY, user_id TEXT NOT NULL, started_at REAL NOT NULL, revoked_at REAL, revoke_reason TEXT
);
CREATE TABLE IF NOT EXISTS acct_credits (
  org_id TEXT NOT NULL, period TEXT NOT NULL, used REAL NOT NULL, PRIMARY KEY (org_id, period)
);
CREATE TABLE IF NOT EXISTS acct_llm_usage (
  org_id TEXT NOT NULL, period TEXT NOT NULL, calls INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, PRIMARY KEY (org_id, period)
);
`;
