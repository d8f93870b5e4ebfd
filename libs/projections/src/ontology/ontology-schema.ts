import type { Database } from 'better-sqlite3';

/** SQLite tables of the ontology read model (embedded default). Full records are kept as JSON. */
export const ONTOLOGY_TABLES = ['onto_schemas', 'onto_types', 'onto_proposals', 'onto_objects'] as const;

/** Brings a projections database made by an earlier version to this schema (the rows are rebuilt). */
export function migrateOntologySchema(db: Database): void {
  const cols = (db.prepare("SELECT name FROM pragma_table_info('onto_schemas')").all() as { name: string }[]).map((c) => c.name);
  if (!cols.includes('activated_position')) db.exec('ALTER TABLE onto_schemas ADD COLUMN activated_position INTEGER');
}

export const ONTOLOGY_DDL = `
CREATE TABLE IF NOT EXISTS onto_schemas (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, status TEXT NOT NULL, activated_at REAL, updated_at REAL NOT NULL,
  revision INTEGER NOT NULL, record TEXT NOT NULL, activated_position INTEGER);
CREATE INDEX IF NOT EXISTS onto_schemas_org ON onto_schemas(org_id, updated_at);
CREATE TABLE IF NOT EXISTS onto_types (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, schema_id TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
  status TEXT NOT NULL, created_at REAL NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS onto_types_schema ON onto_types(schema_id, kind);
CREATE TABLE IF NOT EXISTS onto_proposals (
  id TEXT PRIMARY KEY, org_id TEXT NOT NULL, schema_id TEXT NOT NULL, review_status TEXT NOT NULL, object_type TEXT NOT NULL,
  proposal_type TEXT NOT NULL, extract_job_id TEXT, created_at REAL NOT NULL, revision INTEGER NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS onto_proposals_org ON onto_proposals(org_id, created_at);
CREATE TABLE IF NOT EXISTS onto_objects (
  org_id TEXT NOT NULL, uid TEXT NOT NULL, schema_id TEXT NOT NULL, object_type_id TEXT NOT NULL, object_type TEXT NOT NULL,
  canonical_name TEXT NOT NULL, identity_key TEXT NOT NULL, created_at REAL NOT NULL, updated_at REAL NOT NULL,
  live INTEGER NOT NULL, PRIMARY KEY (org_id, uid));
CREATE INDEX IF NOT EXISTS onto_objects_list ON onto_objects(org_id, schema_id, live, updated_at);
CREATE INDEX IF NOT EXISTS onto_objects_identity ON onto_objects(org_id, object_type_id, identity_key, live);
`;
