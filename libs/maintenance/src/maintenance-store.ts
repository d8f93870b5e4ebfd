import type { MaintenanceReads, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';

export const MAINTENANCE_STORE = Symbol('MAINTENANCE_STORE');

/**
 * What the graph-wide maintenance routes (export, decay, purge, clear, /evolve decay) need
 * beyond the unit of work: bulk reads of the read model, a point-in-time snapshot, the streams
 * holding an organization's graph, and the storage's own tidying after a clear. Embedded:
 * the SQLite files; servers: MongoDB and KurrentDB.
 */
export interface MaintenanceStore extends MaintenanceReads {
  /** a consistent view for one export; the caller closes it */
  openSnapshot(): SnapshotSource;
  /** every stream holding the organization's graph: nodes, edges, vectors, series, org-wide facts */
  graphStreams(org: string): Promise<string[]>;
  /** runs after a clear has committed (embedded: gives freed pages back to the file system) */
  afterClear(): Promise<void>;
}
