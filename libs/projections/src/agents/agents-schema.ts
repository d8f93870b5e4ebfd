/** SQLite tables of the managed agents' read model (embedded default). Full records are kept as JSON. */
export const AGENT_TABLES = ['agt_agents', 'agt_sessions', 'agt_runs', 'agt_events', 'agt_credits', 'agt_notices', 'agt_schedules', 'agt_activity', 'agt_activity_seq'] as const;

export const AGENTS_DDL = `
CREATE TABLE IF NOT EXISTS agt_agents (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, name_key TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS agt_agents_org ON agt_agents(org_id, created_at);
CREATE TABLE IF NOT EXISTS agt_sessions (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, agent_id TEXT NOT NULL, status TEXT NOT NULL, created_at REAL NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS agt_sessions_org ON agt_sessions(org_id, created_at);
CREATE INDEX IF NOT EXISTS agt_sessions_agent ON agt_sessions(agent_id, status);
CREATE TABLE IF NOT EXISTS agt_runs (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, agent_id TEXT NOT NULL, session_id TEXT NOT NULL, status TEXT NOT NULL,
  queued_at REAL NOT NULL, started_at REAL, ended_at REAL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS agt_runs_session ON agt_runs(session_id, queued_at);
CREATE INDEX IF NOT EXISTS agt_runs_org ON agt_runs(org_id, status);
CREATE INDEX IF NOT EXISTS agt_runs_agent ON agt_runs(agent_id, queued_at);
CREATE TABLE IF NOT EXISTS agt_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, org_id TEXT NOT NULL, run_id TEXT, type TEXT NOT NULL, created_at REAL NOT NULL,
  position INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE INDEX IF NOT EXISTS agt_events_run ON agt_events(run_id, seq);
CREATE TABLE IF NOT EXISTS agt_credits (
  org_id TEXT NOT NULL, agent_id TEXT NOT NULL, day TEXT NOT NULL, credits INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, PRIMARY KEY (org_id, agent_id, day));
CREATE TABLE IF NOT EXISTS agt_notices (
  org_id TEXT NOT NULL, agent_id TEXT NOT NULL, day TEXT NOT NULL, PRIMARY KEY (org_id, agent_id, day));
CREATE TABLE IF NOT EXISTS agt_schedules (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, agent_id TEXT NOT NULL, deleted INTEGER NOT NULL, created_at REAL NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS agt_schedules_org ON agt_schedules(org_id, deleted, created_at);
CREATE INDEX IF NOT EXISTS agt_schedules_agent ON agt_schedules(agent_id, deleted);
CREATE TABLE IF NOT EXISTS agt_activity (
  org_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, agent_id TEXT, agent_name TEXT, session_id TEXT, run_id TEXT,
  schedule_id TEXT, approval_id TEXT, connection_id TEXT, summary TEXT NOT NULL, data TEXT NOT NULL, created_at REAL NOT NULL,
  position INTEGER NOT NULL, PRIMARY KEY (org_id, seq));
CREATE INDEX IF NOT EXISTS agt_activity_position ON agt_activity(position);
CREATE INDEX IF NOT EXISTS agt_activity_agent ON agt_activity(org_id, agent_id, seq);
CREATE INDEX IF NOT EXISTS agt_activity_time ON agt_activity(org_id, created_at);
CREATE TABLE IF NOT EXISTS agt_activity_seq (org_id TEXT PRIMARY KEY, seq INTEGER NOT NULL);
`;
