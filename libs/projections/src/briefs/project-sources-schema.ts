/** Tables of the project-sources read model (projections database; prefix `ps_`). */
export const PROJECT_SOURCES_TABLES = ['ps_nodes', 'ps_edges', 'ps_members'] as const;

/**
 * `ps_nodes` and `ps_edges` keep, for every node and edge, the columns admission and the
 * structural generator's ranking read (never content: labels, props and chunk text are read
 * from the graph for the few items a version keeps). `ps_members` holds each Project's admitted
 * sources (REFERENCE §12.1), one row per member and kind:
 * `d` Docs(P), `c` Chunks(P) (`a` its document), `n` Nodes(P), `e` Edges(P) (`a`→`b`),
 * `p` admitting PartOfProject edges, `o` admitting ChunkOf edges (`a` chunk, `b` document),
 * `x` admitting ExtractedFrom edges (`a` node, `b` chunk).
 */
export const PROJECT_SOURCES_DDL = `
CREATE TABLE IF NOT EXISTS ps_nodes (
  org TEXT NOT NULL, uid TEXT NOT NULL, node_type TEXT NOT NULL, version INTEGER NOT NULL, live INTEGER NOT NULL,
  confidence REAL NOT NULL, created_at REAL NOT NULL, status TEXT, importance REAL,
  PRIMARY KEY (org, uid)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ps_edges (
  org TEXT NOT NULL, uid TEXT NOT NULL, edge_type TEXT NOT NULL, from_uid TEXT NOT NULL, to_uid TEXT NOT NULL,
  version INTEGER NOT NULL, live INTEGER NOT NULL, created_at REAL NOT NULL, attr TEXT,
  PRIMARY KEY (org, uid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ps_edges_out ON ps_edges(org, from_uid, edge_type);
CREATE INDEX IF NOT EXISTS ps_edges_in ON ps_edges(org, to_uid, edge_type);
CREATE INDEX IF NOT EXISTS ps_edges_part_of ON ps_edges(org, from_uid) WHERE edge_type = 'PartOfProject';
CREATE TABLE IF NOT EXISTS ps_members (
  org TEXT NOT NULL, project_uid TEXT NOT NULL, kind TEXT NOT NULL, uid TEXT NOT NULL, a TEXT, b TEXT,
  PRIMARY KEY (org, project_uid, kind, uid)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ps_members_uid ON ps_members(org, uid, kind);
`;
