import type { ActivityStore } from '@strata/auth/activity/activity-store.port';
import type { JobStore } from '@strata/jobs/store/job-store.port';
import type { JobQueue } from '@strata/jobs/queue/job-queue.port';
import type { ScheduleStore } from '@strata/jobs/schedules/schedule-store.port';
import type { DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import type { Clock, IdGenerator } from '@strata/domain/time';
import type { EventStore } from '@strata/event-store/event-store.port';
import type { GraphReadModel, StoredEmbedding } from '@strata/graph-store/graph-read-model.port';
import type { MaintenanceReads, SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import type { LeaseTerms } from '@strata/projections/lease/lease';
import type { CheckpointStorePort, LeaseStorePort } from '@strata/projections/server/server-projection-runner';
import type { TextIndex } from '@strata/text-index/text-index.port';
import type { VectorIndex } from '@strata/vector-index/vector-index.port';
import type { StrataConfig } from '../config/strata-config';
import type { RevisionedReads } from '../unit-of-work/revision-pinning-reader';
import type { ProjectionWait } from '../unit-of-work/server-unit-of-work';

import type { LiveRelay } from '../live-relay/live-relay.port';
/** Who produced a node's recorded vector: a client (pinned) or an embedding provider, from which text. */
export interface EmbeddingOrigin {
  source: 'explicit' | 'provider';
  text_hash: string | null;
}

/** Reads of recorded vectors beside the graph read model (server-mode automatic embedding, the worker's vector projection). */
export interface EmbeddingOriginReads {
  embeddingOrigins(org: string, uids: string[]): Promise<Map<string, EmbeddingOrigin>>;
  getEmbeddings(org: string, uids: string[]): Promise<Map<string, StoredEmbedding>>;
}

/** The graph read model as servers mode reads it (MongoGraphStore). */
export type ServerGraphReads = GraphReadModel & RevisionedReads & EmbeddingOriginReads;

/** The vector index as servers mode reads it (QdrantVectorIndex): points can be looked up. */
export interface ServerVectorIndex extends VectorIndex {
  getVector(org: string, uid: string): Promise<number[] | undefined>;
  /** of these uids, the ones with a point */
  has(org: string, uids: string[]): Promise<Set<string>>;
}

/** Projection checkpoints as the API reads them (MongoCheckpointStore). */
export interface ServerCheckpoints extends CheckpointStorePort {
  /** the lowest position among these projections (0 for one that never ran) */
  lowest(names: readonly string[]): Promise<number>;
}

/**
 * Everything servers-mode code above the adapters uses, as ports: ServerStorage binds them to
 * KurrentDB, MongoDB, Meilisearch and Qdrant; the servers-mode e2e harness
 * (test/servers-mode) to embedded adapters of the same ports.
 */
export interface ServerStores {
  readonly events: EventStore;
  readonly graph: ServerGraphReads;
  readonly checkpoints: ServerCheckpoints;
  readonly text: TextIndex;
  readonly vectors: ServerVectorIndex;
  /** the projections' lowest checkpoint, awaited by writes (read-your-writes) */
  readonly projections: ProjectionWait;
  readonly readWaitMs: number;
  /** request activity of API keys, shared by the replicas */
  readonly activity: ActivityStore;
  /** job records, shared by the replicas (a job started on one is polled on another) */
  readonly jobs: JobStore;
  /** the durable job queue, shared by the replicas (each claims with a lease); the caller closes it */
  jobQueue(clock: Clock, ids: IdGenerator): JobQueue;
  /** schedules, shared by the replicas (each slot fires on one); the caller closes it */
  scheduleStore(): ScheduleStore;
  /** ingested documents' internal metadata (content hash, page map), shared by the replicas */
  documentLedger(): DocumentLedger;
  /** whole-graph reads of decay, purge, clear */
  readonly maintenance: MaintenanceReads;
  /** a point-in-time view of the read model for one export; the caller closes it */
  openSnapshot(): SnapshotSource;
  /** a lease store shared by every replica (the automatic-embedding feed) */
  leases(terms: LeaseTerms): LeaseStorePort;
  /** live-only messages between the replicas (streamed model text); without it they stay in this replica */
  readonly liveRelay?: LiveRelay;
}

/**
 * How servers mode obtains its stores (ServerStorage.connect in production). A provider of its
 * own so the servers-mode e2e harness can bind embedded adapters while everything else about
 * SERVER_STORAGE (the read-lag header) stays as in production.
 */
export const SERVER_STORES_CONNECT = Symbol('SERVER_STORES_CONNECT');
/** `clock`: the service's; the stores' leases, checkpoints and caches keep time on it */
export type ServerStoresConnect = (cfg: StrataConfig, clock: Clock) => Promise<ServerStores>;
