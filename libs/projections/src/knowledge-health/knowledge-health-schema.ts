import type { Database } from 'better-sqlite3';
import { EXCEPTION_STATUSES, SEVERITIES, severityRank } from '@strata/domain/knowledge-health';

/** Tables of the Knowledge Health read model (projections database; prefix `kh_`). */
export const KNOWLEDGE_HEALTH_TABLES = ['kh_nodes', 'kh_edges', 'kh_exceptions', 'kh_activity', 'kh_transitions', 'kh_settings', 'kh_briefs', 'kh_schedules', 'kh_counts', 'kh_day_counts', 'kh_created'] as const;

/**
 * Where a row of `kh_exceptions` is read from: its stored status, or `timed` when its status
 * depends on the read (an armed time-based condition, a brief's or schedule's Project). Rows
 * in a status lane are counted and paged by index; timed ones (a few) are judged one by one.
 */
export const TIMED_LANE = 'timed';

/**
 * Every exception's first opening, at its first detection (`first_at`), is read from its row:
 * `kh_transitions` holds only reopenings and resolutions. The row's lane and severity are
 * listed so that `kh_exceptions_page` serves the range on `first_at` (one range per pair).
 */
export const FIRST_OPENINGS = `FROM kh_exceptions INDEXED BY kh_exceptions_page WHERE org = ? AND lane IN (${[...EXCEPTION_STATUSES, TIMED_LANE].map((l) => `'${l}'`).join(', ')}) AND sev IN (${SEVERITIES.map(severityRank).join(', ')}) AND first_at >= ? AND first_at < ?`;

/** The day buckets of `kh_day_counts` (seconds). */
export const DAY_S = 86400;

/**
 * A Claim's support as the projection last judged it (§14.1): the summary counts evidence
 * completeness from it by an index, instead of joining every Claim to its edges per read.
 */
export const CLAIM_SUPPORT = { unsupported: 0, sourced: 1, evidenced: 2 } as const;

/**
 * The term of the partial index `kh_nodes_claims`: SQLite uses a partial index only for a
 * query whose WHERE holds its term, so the reads carry it.
 */
export const CLAIM_TERM = "node_type = 'Claim'";

/**
 * Before the DDL: drops a table whose shape the DDL changed and cannot alter in place (the
 * projection's version moved with it, so its rows are rebuilt from the log anyway).
 */
export function dropOutdatedKnowledgeHealthTables(db: Database): void {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'kh_exceptions'").pluck().get() as string | undefined;
  // version 4 and before keyed exceptions by id (WITHOUT ROWID)
  if (sql && /WITHOUT\s+ROWID/i.test(sql)) db.exec('DROP TABLE kh_exceptions');
}

/** Brings a projections database made by an earlier version to this schema (the writer's side; the rows are rebuilt). */
export function migrateKnowledgeHealthSchema(db: Database): void {
  const cols = (db.prepare("SELECT name FROM pragma_table_info('kh_nodes')").all() as { name: string }[]).map((c) => c.name);
  if (!cols.includes('support')) db.exec('ALTER TABLE kh_nodes ADD COLUMN support INTEGER');
  // Claims only: the index serves the support counts and the Claim list, and every other node
  // (a Chunk, a Goal…) no longer writes an entry; live counts by type come from kh_counts
  db.exec(`DROP INDEX IF EXISTS kh_nodes_support; CREATE INDEX IF NOT EXISTS kh_nodes_claims ON kh_nodes(org, live, support) WHERE ${CLAIM_TERM}`);
  // version 7: a row keeps the instant of its creation (born_at); version 8: not indexed by it
  for (const t of ['kh_nodes', 'kh_edges'])
    if (!(db.prepare(`SELECT name FROM pragma_table_info('${t}')`).all() as { name: string }[]).some((c) => c.name === 'born_at')) db.exec(`ALTER TABLE ${t} ADD COLUMN born_at REAL`);
  db.exec('DROP INDEX IF EXISTS kh_nodes_born; DROP INDEX IF EXISTS kh_edges_born;');
  const xcols = (db.prepare("SELECT name FROM pragma_table_info('kh_exceptions')").all() as { name: string }[]).map((c) => c.name);
  for (const [c, t] of [['lane', 'TEXT'], ['sev', 'INTEGER'], ['first_at', 'REAL'], ['resolved_at', 'REAL']]) if (!xcols.includes(c)) db.exec(`ALTER TABLE kh_exceptions ADD COLUMN ${c} ${t}`);
  db.exec(EXCEPTION_LANE_INDEXES);
  const tcols = (db.prepare("SELECT name FROM pragma_table_info('kh_transitions')").all() as { name: string }[]).map((c) => c.name);
  if (!tcols.includes('subject_uid')) db.exec('ALTER TABLE kh_transitions ADD COLUMN subject_uid TEXT');
  db.exec(TRANSITION_SUBJECT_INDEX);
}

/**
 * An exception's transitions, found by its subject (an exception true for no time at all takes
 * its opening back; the summary reads one exception's transitions). Not by its id: ids are
 * hashes, and an index on them took a random page write per transition; subjects are mostly
 * new nodes, whose time-ordered uids put their entries at the index's end.
 */
const TRANSITION_SUBJECT_INDEX = `
DROP INDEX IF EXISTS kh_transitions_id;
CREATE INDEX IF NOT EXISTS kh_transitions_subject ON kh_transitions(org, subject_uid, id);
`;

/** The list's order within a lane (severity, first detection, id), and per-kind counts within one. */
const EXCEPTION_LANE_INDEXES = `
CREATE INDEX IF NOT EXISTS kh_exceptions_page ON kh_exceptions(org, lane, sev, first_at, id);
CREATE INDEX IF NOT EXISTS kh_exceptions_lane_kind ON kh_exceptions(org, lane, kind, resolved_at);
`;

/**
 * The projection keeps its own compact copy of what the exception conditions read (types,
 * liveness, versions, a few props), so it runs the same way beside the graph on the embedded
 * default and in each replica's mirror in servers mode, where the graph is elsewhere.
 */
export const KNOWLEDGE_HEALTH_DDL = `
CREATE TABLE IF NOT EXISTS kh_nodes (
  org TEXT NOT NULL, uid TEXT NOT NULL, node_type TEXT NOT NULL, label TEXT NOT NULL, live INTEGER NOT NULL,
  version INTEGER NOT NULL, created_at REAL NOT NULL, created_by TEXT, last_version_at REAL NOT NULL,
  tombstone_at REAL, status TEXT, status_since REAL, update_times TEXT NOT NULL, attrs TEXT, support INTEGER, born_at REAL,
  PRIMARY KEY (org, uid)
) WITHOUT ROWID;
-- reads by (org, node_type, live) are of Claims (kh_nodes_claims) or counted (kh_counts)
DROP INDEX IF EXISTS kh_nodes_type;
CREATE TABLE IF NOT EXISTS kh_edges (
  org TEXT NOT NULL, uid TEXT NOT NULL, edge_type TEXT NOT NULL, from_uid TEXT NOT NULL, to_uid TEXT NOT NULL,
  live INTEGER NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL, attrs TEXT, born_at REAL,
  PRIMARY KEY (org, uid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS kh_edges_in ON kh_edges(org, to_uid, edge_type);
CREATE INDEX IF NOT EXISTS kh_edges_out ON kh_edges(org, from_uid, edge_type);
-- No index by edge type: the support sets (a restricted caller's summary) walk the live Claims
-- and each one's edges in kh_edges_in / kh_edges_out, where an index of the support types took
-- an entry for every ExtractedFrom edge (most edges an ingestion writes)
DROP INDEX IF EXISTS kh_edges_type;
DROP INDEX IF EXISTS kh_edges_typed;
DROP INDEX IF EXISTS kh_edges_support;
-- A row table, not one keyed by id: an id is a hash, so rows keyed by it land on random pages
-- and a /batch of a thousand Claims rewrote nearly every page of the table (and of
-- kh_exceptions_lane_kind, whose open rows were ordered by id) in each commit. Rows now go
-- where they are created.
CREATE TABLE IF NOT EXISTS kh_exceptions (
  org TEXT NOT NULL, id TEXT NOT NULL, kind TEXT NOT NULL, subject_uid TEXT NOT NULL, subject_type TEXT NOT NULL,
  from_uid TEXT, to_uid TEXT, state TEXT, arm TEXT, lane TEXT, sev INTEGER, first_at REAL, resolved_at REAL
);
-- Unique by subject and id, and so by id: an id is the hash of its kind and subject, so two
-- rows with one id have one subject too. No index by id alone: every write finds its row by
-- subject (mostly new nodes, whose time-ordered uids put the entries at the index's end),
-- where an index keyed by the hash took a random page write per new exception.
DROP INDEX IF EXISTS kh_exceptions_id;
DROP INDEX IF EXISTS kh_exceptions_subject;
CREATE UNIQUE INDEX IF NOT EXISTS kh_exceptions_subject_id ON kh_exceptions(org, subject_uid, id);
-- live counters: 'node:<type>' live nodes, 'edges' live edges, 'claim:evidenced' / 'claim:sourced' live Claims by support
CREATE TABLE IF NOT EXISTS kh_counts (
  org TEXT NOT NULL, key TEXT NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (org, key)
) WITHOUT ROWID;
-- kh_activity, kh_transitions and kh_created rows, counted by (what, day): a window reads its whole days here
CREATE TABLE IF NOT EXISTS kh_day_counts (
  org TEXT NOT NULL, what TEXT NOT NULL, day INTEGER NOT NULL, n INTEGER NOT NULL,
  PRIMARY KEY (org, what, day)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kh_activity (
  org TEXT NOT NULL, at REAL NOT NULL, what TEXT NOT NULL, uid TEXT NOT NULL, from_uid TEXT, to_uid TEXT, position INTEGER NOT NULL
);
-- covering what a window counts (no row lookups); replaces the (org, at) index of earlier versions
DROP INDEX IF EXISTS kh_activity_at;
CREATE INDEX IF NOT EXISTS kh_activity_window ON kh_activity(org, at, what);
-- a purge erases its subjects' activity: found by uid, not by a scan of the organization's activity
CREATE INDEX IF NOT EXISTS kh_activity_uid ON kh_activity(org, uid);
-- Creations (what: nodes_created, edges_created), one row per unit of work and what it
-- created, with the uids in creation order (a JSON array), where an index of the node and edge
-- rows by creation time took an entry per object. Keyed by the unit (instant and request), so a
-- row is one b-tree entry, a window counts along the key, and a unit whose events were applied
-- in two parts (a rebuild's batch ending inside it) appends to its one row, as applied live. A
-- restricted caller's summary reads the uids; a purge takes its uids out.
CREATE TABLE IF NOT EXISTS kh_created (
  org TEXT NOT NULL, at REAL NOT NULL, what TEXT NOT NULL, request TEXT NOT NULL, n INTEGER NOT NULL, uids TEXT NOT NULL,
  PRIMARY KEY (org, at, what, request)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kh_transitions (
  org TEXT NOT NULL, at REAL NOT NULL, id TEXT NOT NULL, what TEXT NOT NULL, subject_uid TEXT
);
DROP INDEX IF EXISTS kh_transitions_at;
CREATE INDEX IF NOT EXISTS kh_transitions_window ON kh_transitions(org, at, id, what);
CREATE TABLE IF NOT EXISTS kh_settings (
  org TEXT NOT NULL PRIMARY KEY, approval_deadline_hours INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS kh_briefs (
  org TEXT NOT NULL, project_uid TEXT NOT NULL, version INTEGER NOT NULL, created_at REAL NOT NULL, source_fingerprint TEXT NOT NULL,
  PRIMARY KEY (org, project_uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kh_schedules (
  org TEXT NOT NULL, id TEXT NOT NULL, project_uid TEXT NOT NULL, channel TEXT NOT NULL, recent TEXT NOT NULL,
  PRIMARY KEY (org, id)
) WITHOUT ROWID;
`;
