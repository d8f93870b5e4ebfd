import { DomainError } from '@strata/domain/errors';
import type { DecayCandidateRow, DecayScope, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import { MongoMaintenanceReads } from '@strata/graph-store/mongo/mongo-maintenance-reads';
import { MongoSnapshotReader } from '@strata/graph-store/mongo/mongo-snapshot-reader';
import type { ServerStorage } from '../../platform/storage/server-storage';
import { graphStreamsOf } from './graph-streams';
import { MaintenanceStore } from './maintenance-store';

/**
 * Server mode: bulk reads and snapshots from the MongoDB read model; the streams of an
 * organization named from its nodes and edges there, once the read model has caught up with
 * the log (a node written a moment ago must not keep its stream through a clear).
 */
export class ServerMaintenanceStore implements MaintenanceStore {
  private readonly reads: MongoMaintenanceReads;

  constructor(private readonly storage: ServerStorage) {
    this.reads = new MongoMaintenanceReads(storage.graph);
  }

  decayCandidates(org: string, scope: DecayScope): Promise<DecayCandidateRow[]> {
    return this.reads.decayCandidates(org, scope);
  }

  tombstonedUids(kind: 'nodes' | 'edges', org: string, cutoff: number | null): Promise<string[]> {
    return this.reads.tombstonedUids(kind, org, cutoff);
  }

  graphUids(org: string): Promise<{ nodes: string[]; edges: string[] }> {
    return this.reads.graphUids(org);
  }

  openSnapshot(): SnapshotSource {
    return MongoSnapshotReader.open(this.storage.graph);
  }

  async graphStreams(org: string): Promise<string[]> {
    const head = await this.storage.events.headPosition();
    if (!(await this.storage.projections.waitFor(head, this.storage.readWaitMs)))
      throw new DomainError(503, 'projections_lagging', 'the read models are catching up with the event log; retry the clear in a moment');
    return graphStreamsOf(org, await this.reads.graphUids(org));
  }

  async afterClear(): Promise<void> {
    // KurrentDB frees deleted streams' space in its scavenge, an operator's task (docs/operations.md)
  }
}
