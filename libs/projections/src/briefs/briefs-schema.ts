/** Tables of the briefs read model (projections database; prefix `brief_`). */
export const BRIEFS_TABLES = ['brief_versions', 'brief_projects', 'brief_item_memory', 'brief_project_grants', 'briefing_schedules', 'briefing_runs'] as const;

export const BRIEFS_DDL = `
CREATE TABLE IF NOT EXISTS brief_versions (
  org_id TEXT NOT NULL, project_uid TEXT NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (org_id, project_uid, version)
);
CREATE TABLE IF NOT EXISTS brief_projects (
  org_id TEXT NOT NULL, project_uid TEXT NOT NULL, current_version INTEGER, last_error TEXT, revision INTEGER NOT NULL,
  PRIMARY KEY (org_id, project_uid)
);
CREATE TABLE IF NOT EXISTS brief_item_memory (
  org_id TEXT NOT NULL, project_uid TEXT NOT NULL, item_id TEXT NOT NULL, first_version INTEGER NOT NULL, correction TEXT,
  PRIMARY KEY (org_id, project_uid, item_id)
);
CREATE TABLE IF NOT EXISTS brief_project_grants (
  org_id TEXT NOT NULL, project_uid TEXT NOT NULL, principal_uid TEXT NOT NULL, role TEXT NOT NULL,
  granted_by TEXT NOT NULL, granted_at REAL NOT NULL, updated_at REAL NOT NULL, position INTEGER NOT NULL,
  PRIMARY KEY (org_id, project_uid, principal_uid)
);
CREATE INDEX IF NOT EXISTS brief_project_grants_principal ON brief_project_grants(org_id, principal_uid);
CREATE TABLE IF NOT EXISTS briefing_schedules (
  org_id TEXT NOT NULL, id TEXT NOT NULL, project_uid TEXT NOT NULL, channel TEXT NOT NULL, recipient TEXT NOT NULL,
  status TEXT NOT NULL, next_run_at REAL, created_at REAL NOT NULL, record TEXT NOT NULL, revision INTEGER NOT NULL,
  last_delivered_version INTEGER, previous_secret_until REAL,
  PRIMARY KEY (org_id, id)
);
CREATE UNIQUE INDEX IF NOT EXISTS briefing_schedules_key ON briefing_schedules(org_id, project_uid, channel, recipient);
CREATE INDEX IF NOT EXISTS briefing_schedules_due ON briefing_schedules(status, next_run_at);
CREATE TABLE IF NOT EXISTS briefing_runs (
  org_id TEXT NOT NULL, id TEXT NOT NULL, schedule_id TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL,
  next_attempt_at REAL, completed_at REAL, record TEXT NOT NULL,
  PRIMARY KEY (org_id, id)
);
CREATE INDEX IF NOT EXISTS briefing_runs_schedule ON briefing_runs(org_id, schedule_id, seq);
CREATE INDEX IF NOT EXISTS briefing_runs_due ON briefing_runs(status, next_attempt_at);
`;
