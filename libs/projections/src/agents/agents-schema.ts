import type { Database } from 'better-sqlite3';

/** SQLite tables of the managed agents' read model (embedded default). Full records are kept as JSON. */
export const AGENT_TABLES = ['agt_agents', 'agt_sessions', 'agt_runs', 'agt_events', 'agt_credits', 'agt_notices', 'agt_schedules', 'agt_activity'] as const;

/**
 * Each commit of a run writes a page of every B-tree it touches, so an index is kept only
 * where a query reads by it, and the tables of small rows are keyed by their primary key alone
 * (WITHOUT ROWID: one B-tree, not a rowid table and its key's index). The tables of JSON records
 * and listed events keep their rowid: a WITHOUT ROWID row over about 1 KB spills to an
 * overflow page, written again at each update (measured: more pages per run, not fewer).
 */
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
CREATE INDEX IF NOT EXISTS agt_runs_org ON agt_runs(org_id, status);
CREATE INDEX IF NOT EXISTS agt_runs_agent ON agt_runs(agent_id, queued_at);
CREATE TABLE IF NOT EXISTS agt_events (
  session_id TEXT NOT NULL, seq INTEGER NOT NULL, org_id TEXT NOT NULL, run_id TEXT, type TEXT NOT NULL, created_at REAL NOT NULL,
  position INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS agt_credits (
  org_id TEXT NOT NULL, agent_id TEXT NOT NULL, day TEXT NOT NULL, credits INTEGER NOT NULL, input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL, PRIMARY KEY (org_id, agent_id, day)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agt_notices (
  org_id TEXT NOT NULL, agent_id TEXT NOT NULL, day TEXT NOT NULL, PRIMARY KEY (org_id, agent_id, day)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agt_schedules (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, agent_id TEXT NOT NULL, deleted INTEGER NOT NULL, created_at REAL NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS agt_schedules_org ON agt_schedules(org_id, deleted, created_at);
CREATE INDEX IF NOT EXISTS agt_schedules_agent ON agt_schedules(agent_id, deleted);
CREATE TABLE IF NOT EXISTS agt_activity (
  org_id TEXT NOT NULL, seq INTEGER NOT NULL, type TEXT NOT NULL, agent_id TEXT, agent_name TEXT, session_id TEXT, run_id TEXT,
  schedule_id TEXT, approval_id TEXT, connection_id TEXT, summary TEXT NOT NULL, data TEXT NOT NULL, created_at REAL NOT NULL,
  position INTEGER NOT NULL, PRIMARY KEY (org_id, seq)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS agt_activity_position ON agt_activity(position);
CREATE INDEX IF NOT EXISTS agt_activity_agent ON agt_activity(org_id, agent_id, seq);
CREATE INDEX IF NOT EXISTS agt_activity_time ON agt_activity(org_id, created_at);
`;

/** tables and indexes of earlier versions that this schema no longer has */
const RETIRED = ['agt_activity_seq'];

/**
 * Before the DDL: a database made by version 4 or before has a rowid activity table (a table's
 * shape cannot change in place), indexes and a table this one no longer keeps. They are dropped; the
 * projection's version moved with them, so its rows are rebuilt from the log anyway.
 */
export function dropOutdatedAgentTables(db: Database): void {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'agt_activity'").pluck().get() as string | undefined;
  if (sql === undefined || /WITHOUT\s+ROWID/i.test(sql)) return;
  for (const t of [...AGENT_TABLES, ...RETIRED]) db.exec(`DROP TABLE IF EXISTS ${t}`);
}
