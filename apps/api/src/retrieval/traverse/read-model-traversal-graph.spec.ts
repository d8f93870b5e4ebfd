import Database from 'better-sqlite3';
import { SqliteGraphStore } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { ADJACENCY_SQL, HEADS_SQL } from './read-model-traversal-graph';

/**
 * Traversal's adjacency reads must never touch edge rows: a depth-2 neighbourhood reads ~400.
 * (Node heads read the row by primary key: a covering index with the label, an expression over
 * the JSON doc, cost ~15% of /batch write throughput for ~1 ms of neighbourhood time.)
 */
describe('ReadModelTraversalGraph statements', () => {
  const store = new SqliteGraphStore(new Database(':memory:'));
  const plan = (sql: string) =>
    (store.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all('org', '[]') as { detail: string }[]).map((r) => r.detail).join('\n');

  it.each([
    ['outgoing adjacency', ADJACENCY_SQL.outgoing, 'edges_out'],
    ['incoming adjacency', ADJACENCY_SQL.incoming, 'edges_in'],
  ])('reads %s from a covering index', (_, sql, index) => {
    expect(plan(sql)).toMatch(new RegExp(`USING COVERING INDEX ${index}\\b`));
  });

  it('reads node heads by primary key', () => {
    expect(plan(HEADS_SQL)).toMatch(/USING INDEX sqlite_autoindex_nodes_1|USING PRIMARY KEY/);
  });
});
