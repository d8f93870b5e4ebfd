import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import Database from 'better-sqlite3';
import { SqliteActivityStore } from '@strata/auth/activity/sqlite-activity-store';
import { SqliteJobStore } from '@strata/jobs/store/sqlite-job-store';
import { SqliteJobQueue } from '@strata/jobs/queue/sqlite-job-queue';
import { SqliteDocumentLedger } from '@strata/extraction/ledger/sqlite-document-ledger';
import { SqliteScheduleStore } from '@strata/jobs/schedules/sqlite-schedule-store';
import { sharedJobs } from '@strata/jobs/testing/shared-job-store';
import type { ActivityStore } from '@strata/auth/activity/activity-store.port';
import type { EventStore } from '@strata/event-store/event-store.port';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { CheckpointWatcher } from '@strata/projections/server/checkpoint-watcher';
import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import { SqliteTextIndex } from '@strata/text-index/sqlite/sqlite-text-index';
import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import type { ProjectorStores } from '../../../apps/worker/src/projector';
import { withDeliveryLatency } from '../../accounts/support/servers-replica';
import { EmbeddedServerVectorIndex } from './embedded-server-vector-index';
import { MemoryCheckpointStore } from './memory-checkpoint-store';
import { LeaseTable } from './memory-lease-store';
import { SqliteMaintenanceReads, openSqliteSnapshot } from '@strata/graph-store/sqlite/sqlite-maintenance-reads';
import { SqliteServerGraph } from './sqlite-server-graph';
import { withSparsePositions } from './sparse-positions';
import { FixedClock } from '@strata/domain/time';
import { InMemoryLiveRelay } from '@strata/platform/live-relay/in-memory-live-relay';

/**
 * How long after its commit a subscription delivers an event: KurrentDB's subscriptions reach
 * the worker and each replica over the network, so nothing may assume delivery at commit.
 */
export const DELIVERY_LATENCY_MS = 30;

/**
 * What the servers of one servers-mode test hold, in process, each played by an embedded
 * adapter of the port the server adapter implements:
 *
 * | server                        | port                                   | stand-in                                   |
 * |-------------------------------|----------------------------------------|--------------------------------------------|
 * | KurrentDB (event log)         | EventStore                             | SqliteEventStore, sparse positions, delayed|
 * | MongoDB graph read model      | ServerGraphReads (GraphReadModel + …)  | SqliteServerGraph (SqliteGraphStore)       |
 * | MongoDB graph writes (worker) | GraphWriterPort                        | SqliteServerGraphWriter (SqliteGraphWriter)|
 * | MongoDB maintenance reads     | MaintenanceReads, SnapshotSource       | the embedded SQLite queries and reader     |
 * | MongoDB checkpoints, leases   | ServerCheckpoints, LeaseStorePort      | in memory, over the same pure rules        |
 * | MongoDB request activity      | ActivityStore                          | SqliteActivityStore in memory              |
 * | MongoDB live relay            | LiveRelay                              | InMemoryLiveRelay, one for all replicas    |
 * | Meilisearch                   | TextIndex                              | SqliteTextIndex (FTS5)                     |
 * | Qdrant                        | ServerVectorIndex (VectorIndex + …)    | EmbeddedVectorIndex                        |
 *
 * Everything ABOVE the ports is the production code of servers mode: ServerUnitOfWork and
 * the read-lag header, CheckpointWatcher, ServerVectors and the automatic-embedding feed,
 * ServerMaintenanceStore, the accounts mirror, and the worker's ServerProjectionRunner with
 * its graph, text and vector projections (assembleProjector, as apps/worker wires them).
 *
 * What this does NOT prove: anything about the server adapters themselves (KurrentDB,
 * MongoDB, Meilisearch, Qdrant translation and query semantics, Meilisearch's ranking, network
 * failures and timeouts, MongoDB's compare-and-swap under real concurrency), nor the code that
 * connects them (ServerStorage.connect, buildProjector's clients, apps/worker/src/main.ts's
 * signals): `apiStores` and `projectorStores` below stand in for those two wirings. The
 * adapters have their unit tests and the conformance suites in libs/**\/*.servers.ts, which
 * run against real servers.
 */
export class EmbeddedServers {
  readonly dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-servers-mode-'));
  readonly log = new SqliteEventStore(path.join(this.dir, 'log.db'), { pollIntervalMs: 25 });
  /** the log with KurrentDB's sparse positions, one for all (the delivery lag is kept per log) */
  private readonly sparseLog = withSparsePositions(this.log);
  readonly readModelFile = path.join(this.dir, 'read-model.db');
  readonly readModelDb = openReadModel(this.readModelFile);
  readonly graph = new SqliteServerGraph(this.readModelDb);
  readonly text = new SqliteTextIndex(this.readModelDb);
  readonly vectors = new EmbeddedServerVectorIndex(new EmbeddedVectorIndex(path.join(this.dir, 'vectors')));
  readonly maintenance = new SqliteMaintenanceReads(this.readModelDb);
  readonly checkpoints = new MemoryCheckpointStore();
  readonly leases = new LeaseTable();
  readonly activity = new SqliteActivityStore(':memory:');
  readonly jobs = new SqliteJobStore(':memory:');
  /** MongoDB's live relay (a capped collection tailed by each replica): one for all the replicas */
  readonly liveRelay = new InMemoryLiveRelay();

  /**
   * `clock`: the time of every replica, worker and lease of this stack (a FixedClock: leases
   * expire when a test moves it, never while a test waits)
   */
  constructor(
    readonly latencyMs = DELIVERY_LATENCY_MS,
    readonly clock: FixedClock = new FixedClock(),
  ) {}

  /**
   * The log as a KurrentDB client sees it: positions sparse (withSparsePositions), and
   * subscriptions delivering `latencyMs` after commit (a replica far from the log: more).
   */
  remoteLog(latencyMs = this.latencyMs): EventStore {
    return withDeliveryLatency(this.sparseLog, latencyMs);
  }

  /** The head of the log, in the positions the API and the worker see. */
  head(): Promise<number> {
    return this.remoteLog().headPosition();
  }

  /** What ServerStorage.connect gives one API replica: the shared stores, its own checkpoint watcher. */
  apiStores(readWaitMs: number): ServerStores & { onApplicationShutdown(): Promise<void> } {
    const projections = new CheckpointWatcher(() => this.checkpoints.lowest(SERVER_PROJECTION_NAMES));
    const shared: ActivityStore = {
      write: (b) => this.activity.write(b),
      recentRequests: (k, n) => this.activity.recentRequests(k, n),
      lastUsedAt: (ids) => this.activity.lastUsedAt(ids),
      requestsInPeriod: (o, p) => this.activity.requestsInPeriod(o, p),
      close: async () => undefined, // shared: closed by close(), not by a replica stopping
    };
    return {
      events: this.remoteLog(),
      graph: this.graph,
      checkpoints: this.checkpoints,
      text: this.text,
      vectors: this.vectors,
      projections,
      readWaitMs,
      activity: shared,
      jobs: sharedJobs(this.jobs),
      // one file shared by the replicas, each with its own handle (closed when the replica stops)
      jobQueue: (clock, ids) => new SqliteJobQueue(path.join(this.dir, 'queue.db'), clock, ids),
      scheduleStore: () => new SqliteScheduleStore(path.join(this.dir, 'queue.db')),
      documentLedger: () => new SqliteDocumentLedger(path.join(this.dir, 'queue.db')),
      maintenance: this.maintenance,
      openSnapshot: () => openSqliteSnapshot(this.readModelFile),
      leases: (terms) => this.leases.store(terms, this.clock),
      liveRelay: this.liveRelay,
      // as ServerStorage: release waiting writes; the shared stores outlive the replica
      onApplicationShutdown: async () => projections.stop(),
    };
  }

  /** What buildProjector connects one worker to. */
  projectorStores(): ProjectorStores {
    return {
      events: this.remoteLog(),
      checkpoints: this.checkpoints,
      leases: (terms) => this.leases.store(terms, this.clock),
      graph: this.graph,
      graphWriter: this.graph.writer(),
      text: this.text,
      resetText: async () => this.text.clearSync(),
      vectors: this.vectors,
      resetVectors: () => this.vectors.removeAll(),
    };
  }

  async close(): Promise<void> {
    await this.activity.close();
    await this.jobs.close();
    await this.vectors.close();
    await this.log.close();
    this.readModelDb.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The read model in a file (the export snapshot opens its own read connection), WAL like the embedded one. */
function openReadModel(file: string): Database.Database {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  return db;
}
