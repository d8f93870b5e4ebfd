import type { Database } from 'better-sqlite3';
import type { DecayCandidateRow, DecayScope, MaintenanceReads, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import { decayCandidatesSync, tombstonedUidsSync } from '@strata/graph-store/sqlite/sqlite-maintenance-reads';
import { SqliteSnapshotReader } from '@strata/graph-store/sqlite/sqlite-snapshot-reader';

/**
 * The MaintenanceReads port on the SQLite read model (MongoMaintenanceReads in servers mode):
 * the embedded queries, which EmbeddedMaintenanceStore runs against the same tables.
 */
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

/** A SnapshotSource pinned on the read-model file (MongoSnapshotReader in servers mode). */
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
