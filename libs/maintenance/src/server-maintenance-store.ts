import { DomainError } from '@strata/domain/errors';
import type { DecayCandidateRow, DecayScope, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { graphStreamsOf } from './graph-streams';
import { MaintenanceStore } from './maintenance-store';

/**
 * Server mode: bulk reads and snapshots from the read model (MongoDB); the streams of an
 * organization named from its nodes and edges there, once the read model has caught up with
 * the log (a node written a moment ago must not keep its stream through a clear).
 */
export class ServerMaintenanceStore implements MaintenanceStore {
  constructor(private readonly storage: Pick<ServerStores, 'events' | 'projections' | 'readWaitMs' | 'maintenance' | 'openSnapshot'>) {}

  decayCandidates(org: string, scope: DecayScope): Promise<DecayCandidateRow[]> {
    return this.storage.maintenance.decayCandidates(org, scope);
  }

  tombstonedUids(kind: 'nodes' | 'edges', org: string, cutoff: number | null): Promise<string[]> {
    return this.storage.maintenance.tombstonedUids(kind, org, cutoff);
  }

  graphUids(org: string): Promise<{ nodes: string[]; edges: string[] }> {
    return this.storage.maintenance.graphUids(org);
  }

  openSnapshot(): SnapshotSource {
    return this.storage.openSnapshot();
  }

  async graphStreams(org: string): Promise<string[]> {
    const head = await this.storage.events.headPosition();
    if (!(await this.storage.projections.waitFor(head, this.storage.readWaitMs)))
      throw new DomainError(503, 'projections_lagging', 'the read models are catching up with the event log; retry the clear in a moment');
    return graphStreamsOf(org, await this.storage.maintenance.graphUids(org));
  }

  async afterClear(): Promise<void> {
    // KurrentDB frees deleted streams' space in its scavenge, an operator's task (docs/operations.md)
  }
}
