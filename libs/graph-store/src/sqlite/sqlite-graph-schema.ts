import type { Database } from 'better-sqlite3';
import { ENTITY_NODE_TYPE_NAMES } from '@strata/domain/catalogue';

/**
 * Read-model tables. `doc` holds the full record as JSON, so a read is one row and no
 * re-assembly; the other columns exist to filter and sort.
 */
export function createGraphSchema(db: Database): void {
  db.exec(`
    CREATE TABLE IF NOT EXISTS nodes (
      org TEXT NOT NULL, uid TEXT NOT NULL, node_type TEXT NOT NULL, layer TEXT NOT NULL,
      label_norm TEXT NOT NULL, label_lower TEXT NOT NULL, agent_id TEXT, privacy_level TEXT NOT NULL,
      confidence REAL NOT NULL, salience REAL NOT NULL,
      created_at REAL NOT NULL, updated_at REAL NOT NULL, tombstone_at REAL, last_decayed_at REAL,
      version INTEGER NOT NULL, vcount INTEGER NOT NULL, rev INTEGER NOT NULL, doc TEXT NOT NULL,
      PRIMARY KEY (org, uid)
    );

    CREATE TABLE IF NOT EXISTS edges (
      org TEXT NOT NULL, uid TEXT NOT NULL, from_uid TEXT NOT NULL, to_uid TEXT NOT NULL,
      edge_type TEXT NOT NULL, layer TEXT NOT NULL, weight REAL NOT NULL, confidence REAL NOT NULL,
      created_at REAL NOT NULL, updated_at REAL NOT NULL, tombstone_at REAL, tombstone_reason TEXT,
      version INTEGER NOT NULL, vcount INTEGER NOT NULL, rev INTEGER NOT NULL, doc TEXT NOT NULL,
      PRIMARY KEY (org, uid)
    );
    DROP INDEX IF EXISTS edges_from;
    DROP INDEX IF EXISTS edges_to;

    CREATE TABLE IF NOT EXISTS aliases (
      org TEXT NOT NULL, norm TEXT NOT NULL, canonical_uid TEXT NOT NULL, text TEXT NOT NULL,
      score REAL NOT NULL, created_at REAL NOT NULL,
      PRIMARY KEY (org, norm, canonical_uid)
    );
    CREATE INDEX IF NOT EXISTS aliases_uid ON aliases(org, canonical_uid);

    CREATE TABLE IF NOT EXISTS embedding_config (
      org TEXT PRIMARY KEY, provider TEXT NOT NULL, model TEXT NOT NULL, dimensions INTEGER NOT NULL,
      distance_metric TEXT NOT NULL, configured_at REAL NOT NULL
    );
    CREATE TABLE IF NOT EXISTS embeddings (
      org TEXT NOT NULL, uid TEXT NOT NULL, model TEXT NOT NULL, dimension INTEGER NOT NULL,
      vector BLOB NOT NULL, updated_at REAL NOT NULL,
      PRIMARY KEY (org, uid)
    );
    CREATE TABLE IF NOT EXISTS membership_marks (
      org TEXT PRIMARY KEY, pos INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS series_points (
      org TEXT NOT NULL, series_uid TEXT NOT NULL, ts REAL NOT NULL, value REAL NOT NULL,
      source_uid TEXT, note TEXT, recorded_at REAL NOT NULL,
      PRIMARY KEY (org, series_uid, ts)
    ) WITHOUT ROWID;
  `);
  createSeriesCounts(db);
  // Indexes are kept to the definitions below: one of an older shape is built again (once).
  for (const [name, sql] of Object.entries(GRAPH_INDEXES)) {
    const current = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").pluck().get(name) as string | undefined;
    if (current === sql) continue;
    if (current !== undefined) db.exec(`DROP INDEX ${name}`);
    db.exec(sql);
  }
  db.exec('DROP INDEX IF EXISTS nodes_agent');
}

/**
 * Points per series, kept by the writer beside series_points: GET /stats and a series' size
 * then read one row per series instead of counting millions of points. A database from
 * before this table gets it filled once, from the points it holds.
 */
function createSeriesCounts(db: Database): void {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'series_counts'").get()) return;
  db.transaction(() => {
    db.exec(`
      CREATE TABLE series_counts (
        org TEXT NOT NULL, series_uid TEXT NOT NULL, points INTEGER NOT NULL,
        PRIMARY KEY (org, series_uid)
      ) WITHOUT ROWID;
      INSERT INTO series_counts(org, series_uid, points) SELECT org, series_uid, count(*) FROM series_points GROUP BY org, series_uid;
    `);
  })();
}

/**
 * The node types found by their normalised label (entity resolution and find-or-create look
 * up the seven entity types only), as the SQL term that both the partial `nodes_label` index
 * and a query using it carry: SQLite uses a partial index only for a query whose WHERE holds
 * the index's term itself.
 */
export const LABEL_LOOKUP_TYPES: ReadonlySet<string> = new Set(ENTITY_NODE_TYPE_NAMES);
export const LABEL_LOOKUP_TERM = `node_type IN (${[...LABEL_LOOKUP_TYPES].sort().map((t) => `'${t}'`).join(', ')})`;

/**
 * The read model's secondary indexes. A list filtered by one value (a node type, a layer, an
 * agent, a normalised label, an edge type) must find its index already in the list's order
 * (created_at, then uid): SQLite has no statistics here, and otherwise prefers walking the
 * organization's whole nodes_created index for the ORDER BY, which costs a full scan per page
 * when the filtered value is rare.
 *
 * The type and layer indexes hold live rows only (lists leave tombstones out unless asked),
 * and they and the tombstone indexes end in vcount: GET /stats then counts and sums versions
 * from indexes alone, instead of reading every row of the organization.
 */
export const GRAPH_INDEXES: Record<string, string> = {
  nodes_created: 'CREATE INDEX nodes_created ON nodes(org, created_at DESC, uid)',
  nodes_type: 'CREATE INDEX nodes_type ON nodes(org, node_type, created_at DESC, uid, vcount) WHERE tombstone_at IS NULL',
  nodes_layer: 'CREATE INDEX nodes_layer ON nodes(org, layer, created_at DESC, uid) WHERE tombstone_at IS NULL',
  // most nodes carry no agent_id: they stay out of the agent index (smaller, and not written per node)
  nodes_agent_set: 'CREATE INDEX nodes_agent_set ON nodes(org, agent_id, created_at DESC, uid) WHERE agent_id IS NOT NULL',
  // only the types whose labels are looked up (LABEL_LOOKUP_TERM): a label is random in the
  // index's order, so every other node (Claims, Chunks, Goals…) would cost a random page write
  nodes_label: `CREATE INDEX nodes_label ON nodes(org, label_norm, created_at DESC, uid) WHERE ${LABEL_LOOKUP_TERM}`,
  nodes_tomb: 'CREATE INDEX nodes_tomb ON nodes(org, tombstone_at, vcount) WHERE tombstone_at IS NOT NULL',
  // adjacency indexes carry every column traversal reads, so a hop never touches the table rows
  edges_out: 'CREATE INDEX edges_out ON edges(org, from_uid, edge_type, to_uid, uid, weight, confidence, tombstone_at)',
  edges_in: 'CREATE INDEX edges_in ON edges(org, to_uid, edge_type, from_uid, uid, weight, confidence, tombstone_at)',
  edges_type: 'CREATE INDEX edges_type ON edges(org, edge_type, created_at, uid, vcount) WHERE tombstone_at IS NULL',
  edges_tomb: 'CREATE INDEX edges_tomb ON edges(org, tombstone_at, vcount) WHERE tombstone_at IS NOT NULL',
};

/** Table names in dependency-free order, for drops and rebuild copies. */
export const GRAPH_TABLES = ['nodes', 'edges', 'aliases', 'embedding_config', 'embeddings', 'series_points', 'series_counts', 'membership_marks'];

/**
 * Tables whose secondary indexes serve reads only: the writer finds their rows by primary key
 * (or a prefix of it), so a rebuild into an empty database may create these indexes after
 * loading, several times faster than maintaining them row by row. Keep it true when the
 * writer changes.
 */
export const READ_ONLY_INDEXED_TABLES = ['nodes', 'edges'];
