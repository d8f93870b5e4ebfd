import { Streams } from '@strata/domain/events';
import type { Clock } from '@strata/domain/time';
import type { DecayCandidateRow, DecayScope, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import { SqliteMaintenanceReads, openSqliteSnapshot } from '@strata/graph-store/sqlite/sqlite-maintenance-reads';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { EmbeddedUnitOfWork } from '@strata/platform/unit-of-work/embedded-unit-of-work';
import type { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { MaintenanceStore } from './maintenance-store';
import { compactEmbeddedStorage } from './storage-compaction';

/** The embedded default: bulk reads of the SQLite projections file, streams listed from the SQLite log. */
export class EmbeddedMaintenanceStore implements MaintenanceStore {
  private readonly reads: SqliteMaintenanceReads;

  constructor(
    private readonly storage: EmbeddedStorage,
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
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

  /** Exactly the streams the log holds (the SQLite log lists them by stream family). */
  async graphStreams(org: string): Promise<string[]> {
    const log = this.storage.events;
    // a per-object stream name with an empty uid is its family (`node-<org>:`)
    const families = [Streams.node(org, ''), Streams.edge(org, ''), Streams.embedding(org, ''), Streams.series(org, '')];
    return [...families.flatMap((f) => log.streamsOfFamilySync(f)), Streams.graph(org)];
  }

  /** when the last compaction ran, in the clock's seconds */
  private lastCompaction = -Infinity;
  /** a clear asked for a compaction that the interval has held back */
  private pending = false;
  private deferred: NodeJS.Timeout | null = null;

  /**
   * Compacts both SQLite files (REFERENCE §8.9). A compaction rewrites both files while every
   * tenant's request waits (about 2 s for a 390 MB installation, whatever the clear removed),
   * so they run at most once per COMPACTION_INTERVAL_SECS: a clear soon after another has its
   * space given back once the interval is over, and a loop of clears cannot keep the service
   * stalled.
   */
  async afterClear(): Promise<void> {
    this.pending = true;
    if (!(await this.compactIfDue())) this.scheduleDeferred();
  }

  /**
   * Runs the compaction a clear asked for, if the interval since the last one is over on the
   * clock; true if it ran. A timer calls it when the interval should be over; a test that moved
   * its clock calls it directly.
   */
  async compactIfDue(): Promise<boolean> {
    if (!this.pending || this.secondsToWait() > 0) return false;
    this.pending = false;
    await this.compactNow();
    return true;
  }

  private secondsToWait(): number {
    return this.lastCompaction + COMPACTION_INTERVAL_SECS - this.clock.now();
  }

  private scheduleDeferred(): void {
    // at least a second: a clock that did not move (a test's) must not make this spin
    this.deferred ??= setTimeout(() => {
      this.deferred = null;
      void this.compactIfDue().then((ran) => {
        if (!ran && this.pending) this.scheduleDeferred();
      });
    }, Math.max(this.secondsToWait() * 1000, 1000)).unref();
  }

  /** Between write batches, so no transaction is open on either file. */
  private async compactNow(): Promise<void> {
    if (!this.storage.events.db.open || !this.storage.projections.open) return; // shut down meanwhile
    this.lastCompaction = this.clock.now();
    const exclusive = (this.uow as Partial<EmbeddedUnitOfWork>).exclusive;
    if (exclusive) await exclusive.call(this.uow, async () => compactEmbeddedStorage(this.storage));
    else compactEmbeddedStorage(this.storage);
  }
}

/** the shortest time between two compactions after clears */
const COMPACTION_INTERVAL_SECS = 10 * 60;
