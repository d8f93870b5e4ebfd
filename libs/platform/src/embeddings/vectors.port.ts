import type { RecordedEvent } from '@strata/domain/events';
import type { VectorHit, VectorQuery } from '@strata/vector-index/vector-index.port';
import type { JobRecord } from '@strata/jobs/job-registry';

export const VECTORS = Symbol('VECTORS');

/** What /stats reports about an organization's vectors. */
export interface VectorCounts {
  count: number;
  /** vectors waiting to enter the ANN graph (searched exactly meanwhile) */
  backlog: number;
}

/**
 * The vector index as the API's services see it, whatever holds it: the embedded index in
 * this process (EmbeddedVectors) or Qdrant, kept by the projection worker (ServerVectors).
 * Every read shows the vectors of the caller's acknowledged writes.
 */
export interface Vectors {
  search(q: VectorQuery): Promise<VectorHit[]>;
  /** the indexed vector of a node (undefined: none) */
  vectorOf(org: string, uid: string): Promise<number[] | undefined>;
  /** of these uids, the ones with an indexed vector */
  indexed(org: string, uids: string[]): Promise<Set<string>>;
  count(org: string): Promise<number>;
  counts(org: string): Promise<VectorCounts>;
  /** of these uids, the ones holding a client vector (PUT /node/{uid}/embedding), which automatic embedding never replaces */
  pinned(org: string, uids: string[]): Promise<Set<string>>;
  /**
   * Of these nodes, the ones whose provider vector is indexed and was embedded from text with
   * this hash (the provider need not be asked again).
   */
  upToDate(org: string, items: { uid: string; hash: string }[]): Promise<Set<string>>;
  /** Listeners see committed events once the vector index may be asked about them (auto-embedding). */
  afterIndexed(listener: (events: RecordedEvent[]) => void): void;
  /** Makes the index show every acknowledged write before the caller goes on. */
  settle(): Promise<void>;
  /** The background re-embedding with the built-in embedder last queued for an organization, if any. */
  backfillJob(org: string): Promise<JobRecord | null>;
  /**
   * Runs that re-embedding (the durable job's work) from `from` (nodes in creation order),
   * telling `onBatch` of each batch done; stops when `signal` aborts. Embedded default only.
   */
  runBackfill(org: string, from: number, signal: AbortSignal, onBatch: (offset: number, embedded: number) => Promise<void>): Promise<void>;
}
