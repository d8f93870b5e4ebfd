import type { Database } from 'better-sqlite3';

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
    CREATE INDEX IF NOT EXISTS nodes_created ON nodes(org, created_at DESC, uid);
    CREATE INDEX IF NOT EXISTS nodes_type ON nodes(org, node_type, created_at DESC);
    CREATE INDEX IF NOT EXISTS nodes_layer ON nodes(org, layer, created_at DESC);
    CREATE INDEX IF NOT EXISTS nodes_agent ON nodes(org, agent_id, created_at DESC);
    CREATE INDEX IF NOT EXISTS nodes_label ON nodes(org, label_norm);
    CREATE INDEX IF NOT EXISTS nodes_tomb ON nodes(org, tombstone_at) WHERE tombstone_at IS NOT NULL;

    CREATE TABLE IF NOT EXISTS edges (
      org TEXT NOT NULL, uid TEXT NOT NULL, from_uid TEXT NOT NULL, to_uid TEXT NOT NULL,
      edge_type TEXT NOT NULL, layer TEXT NOT NULL, weight REAL NOT NULL, confidence REAL NOT NULL,
      created_at REAL NOT NULL, updated_at REAL NOT NULL, tombstone_at REAL, tombstone_reason TEXT,
      version INTEGER NOT NULL, vcount INTEGER NOT NULL, rev INTEGER NOT NULL, doc TEXT NOT NULL,
      PRIMARY KEY (org, uid)
    );
    -- adjacency indexes carry every column traversal reads, so a hop never touches the table rows
    DROP INDEX IF EXISTS edges_from;
    DROP INDEX IF EXISTS edges_to;
    CREATE INDEX IF NOT EXISTS edges_out ON edges(org, from_uid, edge_type, to_uid, uid, weight, confidence, tombstone_at);
    CREATE INDEX IF NOT EXISTS edges_in ON edges(org, to_uid, edge_type, from_uid, uid, weight, confidence, tombstone_at);
    CREATE INDEX IF NOT EXISTS edges_type ON edges(org, edge_type, created_at);
    CREATE INDEX IF NOT EXISTS edges_tomb ON edges(org, tombstone_at) WHERE tombstone_at IS NOT NULL;

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
    CREATE TABLE IF NOT EXISTS series_points (
      org TEXT NOT NULL, series_uid TEXT NOT NULL, ts REAL NOT NULL, value REAL NOT NULL,
      source_uid TEXT, note TEXT, recorded_at REAL NOT NULL,
      PRIMARY KEY (org, series_uid, ts)
    ) WITHOUT ROWID;
  `);
}

/** Table names in dependency-free order, for drops and rebuild copies. */
export const GRAPH_TABLES = ['nodes', 'edges', 'aliases', 'embedding_config', 'embeddings', 'series_points'];

/**
 * Tables whose secondary indexes serve reads only: the writer finds their rows by primary key
 * (or a prefix of it), so a rebuild into an empty database may create these indexes after
 * loading, several times faster than maintaining them row by row. Keep it true when the
 * writer changes.
 */
export const READ_ONLY_INDEXED_TABLES = ['nodes', 'edges'];
