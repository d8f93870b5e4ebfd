import { Streams } from '@strata/domain/events';
import { streamsWithPrefixSync } from '@strata/event-store/sqlite/sqlite-stream-listing';
import type { DecayCandidateRow, DecayScope, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import { SqliteMaintenanceReads, openSqliteSnapshot } from '@strata/graph-store/sqlite/sqlite-maintenance-reads';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';
import type { EmbeddedUnitOfWork } from '../../platform/unit-of-work/embedded-unit-of-work';
import type { UnitOfWork } from '../../platform/unit-of-work/unit-of-work.port';
import { MaintenanceStore } from './maintenance-store';
import { compactEmbeddedStorage } from './storage-compaction';

/** The embedded default: bulk reads of the SQLite projections file, streams listed from the SQLite log. */
export class EmbeddedMaintenanceStore implements MaintenanceStore {
  private readonly reads: SqliteMaintenanceReads;

  constructor(
    private readonly storage: EmbeddedStorage,
    private readonly uow: UnitOfWork,
  ) {
    this.reads = new SqliteMaintenanceReads(storage.graph.db);
  }

  async decayCandidates(org: string, scope: DecayScope): Promise<DecayCandidateRow[]> {
    return this.reads.decayCandidates(org, scope);
  }

  async tombstonedUids(kind: 'nodes' | 'edges', org: string, cutoff: number | null): Promise<string[]> {
    return this.reads.tombstonedUids(kind, org, cutoff);
  }

  async graphUids(org: string): Promise<{ nodes: string[]; edges: string[] }> {
    return this.reads.graphUids(org);
  }

  /** The read is pinned here: writes made while the export streams are not in it. */
  openSnapshot(): SnapshotSource {
    return openSqliteSnapshot(this.storage.projections.name);
  }

  /** Exactly the streams the log holds (the SQLite log lists them by prefix). */
  async graphStreams(org: string): Promise<string[]> {
    const db = this.storage.events.db;
    // a per-object stream name with an empty uid is the prefix of all of them
    const prefixes = [Streams.node(org, ''), Streams.edge(org, ''), Streams.embedding(org, ''), Streams.series(org, '')];
    return [...prefixes.flatMap((p) => streamsWithPrefixSync(db, p)), Streams.graph(org)];
  }

  /** Compacts both SQLite files between write batches, so no transaction is open on either. */
  async afterClear(): Promise<void> {
    const exclusive = (this.uow as Partial<EmbeddedUnitOfWork>).exclusive;
    if (exclusive) await exclusive.call(this.uow, async () => compactEmbeddedStorage(this.storage));
    else compactEmbeddedStorage(this.storage);
  }
}
