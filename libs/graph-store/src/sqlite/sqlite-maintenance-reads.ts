import type { Database } from 'better-sqlite3';
import type { DecayCandidateRow, DecayScope, MaintenanceReads, SnapshotSource } from '../maintenance-reads.port';
import { SqliteSnapshotReader } from './sqlite-snapshot-reader';

/**
 * Bulk reads of graph maintenance (decay, purge) on the SQLite read model: narrow column
 * reads, no JSON parsing, so whole-graph operations on 100k nodes stay fast.
 */

/** Live nodes in scope, oldest first. */
export function decayCandidatesSync(
  db: Database,
  org: string,
  scope: { layer?: string | null; node_types?: string[] | null; uids?: string[] | null },
): DecayCandidateRow[] {
  const where = ['org = ?', 'tombstone_at IS NULL'];
  const params: unknown[] = [org];
  if (scope.layer) {
    where.push('layer = ?');
    params.push(scope.layer);
  }
  if (scope.node_types && scope.node_types.length) {
    where.push(`node_type IN (${scope.node_types.map(() => '?').join(',')})`);
    params.push(...scope.node_types);
  }
  if (scope.uids) {
    if (!scope.uids.length) return [];
    // one JSON parameter: a scope may hold more uids than SQLite takes parameters
    where.push('uid IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(scope.uids));
  }
  return db
    .prepare(`SELECT uid, salience, created_at, updated_at, last_decayed_at FROM nodes WHERE ${where.join(' AND ')} ORDER BY created_at, uid`)
    .all(...params) as DecayCandidateRow[];
}

/** Uids of nodes or edges tombstoned at or before the cut-off (null: every tombstoned one). */
export function tombstonedUidsSync(db: Database, table: 'nodes' | 'edges', org: string, cutoff: number | null): string[] {
  const sql = `SELECT uid FROM ${table} WHERE org = ? AND tombstone_at IS NOT NULL${cutoff === null ? '' : ' AND tombstone_at <= ?'} ORDER BY uid`;
  const stmt = db.prepare(sql).pluck();
  return (cutoff === null ? stmt.all(org) : stmt.all(org, cutoff)) as string[];
}

/** The MaintenanceReads port on the SQLite read model (MongoMaintenanceReads in servers mode). */
export class SqliteMaintenanceReads implements MaintenanceReads {
  constructor(private readonly db: Database) {}

  async decayCandidates(org: string, scope: DecayScope): Promise<DecayCandidateRow[]> {
    return decayCandidatesSync(this.db, org, scope);
  }

  async tombstonedUids(kind: 'nodes' | 'edges', org: string, cutoff: number | null): Promise<string[]> {
    return tombstonedUidsSync(this.db, kind, org, cutoff);
  }

  async graphUids(org: string): Promise<{ nodes: string[]; edges: string[] }> {
    const uids = (table: 'nodes' | 'edges') => this.db.prepare(`SELECT uid FROM ${table} WHERE org = ? ORDER BY uid`).pluck().all(org) as string[];
    return { nodes: uids('nodes'), edges: uids('edges') };
  }
}

/** A SnapshotSource pinned on the read-model file: writes made while an export streams are not in it. */
export function openSqliteSnapshot(file: string): SnapshotSource {
  const reader = SqliteSnapshotReader.open(file);
  return {
    count: async (what, org, scope) => reader.count(what, org, scope),
    embeddingConfig: async (org) => reader.embeddingConfig(org),
    nodeDocs: (org, scope) => reader.nodeDocs(org, scope),
    edgeDocs: (org, scope) => reader.edgeDocs(org, scope),
    aliases: (org, scope) => reader.aliases(org, scope),
    embeddings: (org, scope) => reader.embeddings(org, scope),
    seriesPoints: (org, scope) => reader.seriesPoints(org, scope),
    close: async () => reader.close(),
  };
}
