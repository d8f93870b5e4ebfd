import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { MongoClient } from 'mongodb';
import { KurrentDbEventStore } from '@strata/event-store/kurrentdb/kurrentdb-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { MongoGraphStore } from '@strata/graph-store/mongo/mongo-graph-store';
import { MongoMaintenanceReads } from '@strata/graph-store/mongo/mongo-maintenance-reads';
import { MongoSnapshotReader } from '@strata/graph-store/mongo/mongo-snapshot-reader';
import type { SnapshotSource } from '@strata/graph-store/maintenance-reads.port';
import type { LeaseTerms } from '@strata/projections/lease/lease';
import { MongoLeaseStore } from '@strata/projections/server/mongo-lease-store';
import { CheckpointWatcher } from '@strata/projections/server/checkpoint-watcher';
import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import { MeilisearchTextIndex } from '@strata/text-index/meilisearch/meilisearch-text-index';
import { QdrantVectorIndex } from '@strata/vector-index/qdrant/qdrant-vector-index';
import { ActivityStore } from '@strata/auth/activity/activity-store.port';
import { MongoActivityStore } from '@strata/auth/activity/mongo-activity-store';
import { JobStore } from '@strata/jobs/store/job-store.port';
import { MongoJobStore } from '@strata/jobs/store/mongo-job-store';
import { MongoDocumentLedger } from '@strata/extraction/ledger/mongo-document-ledger';
import { MongoJobQueue } from '@strata/jobs/queue/mongo-job-queue';
import { MongoScheduleStore } from '@strata/jobs/schedules/mongo-schedule-store';
import type { Clock, IdGenerator } from '@strata/domain/time';
import { StrataConfig } from '../config/strata-config';
import type { ServerStores } from './server-stores';
import { MongoLiveRelay } from '../live-relay/mongo-live-relay';

export { SERVER_STORAGE } from './storage.tokens';

/**
 * Server mode (`STRATA_STORE=servers`): the event log on KurrentDB, the graph read model on
 * MongoDB, full text on Meilisearch, vectors on Qdrant. The API only reads projections and
 * appends events; the projection worker (apps/worker) writes the read models (vectors too,
 * except that the API asks external embedding providers), and `projections` tells a write
 * when they show it. Nothing here is per-instance state, so the API scales by replicas.
 */
export class ServerStorage implements ServerStores, OnApplicationShutdown {
  readonly maintenance: MongoMaintenanceReads;

  private constructor(
    readonly mongo: MongoClient,
    readonly events: KurrentDbEventStore,
    readonly graph: MongoGraphStore,
    readonly checkpoints: MongoCheckpointStore,
    readonly text: MeilisearchTextIndex,
    readonly vectors: QdrantVectorIndex,
    readonly projections: CheckpointWatcher,
    readonly readWaitMs: number,
    /** request activity of API keys, shared by the replicas */
    readonly activity: ActivityStore,
    /** job records, shared by the replicas */
    readonly jobs: JobStore,
    private readonly clock: Clock,
  ) {
    this.maintenance = new MongoMaintenanceReads(graph);
  }

  openSnapshot(): SnapshotSource {
    return MongoSnapshotReader.open(this.graph);
  }

  jobQueue(clock: Clock, ids: IdGenerator): MongoJobQueue {
    return new MongoJobQueue(this.graph.db, clock, ids);
  }

  scheduleStore(): MongoScheduleStore {
    return new MongoScheduleStore(this.graph.db);
  }

  documentLedger(): MongoDocumentLedger {
    return new MongoDocumentLedger(this.graph.db);
  }

  leases(terms: LeaseTerms): MongoLeaseStore {
    return new MongoLeaseStore(this.graph.db, terms, this.clock);
  }

  private relay: MongoLiveRelay | null = null;
  /** made when first used; tails only once something listens */
  get liveRelay(): MongoLiveRelay {
    return (this.relay ??= new MongoLiveRelay(this.graph.db));
  }

  static async connect(cfg: StrataConfig, clock: Clock): Promise<ServerStorage> {
    const log = new Logger('Storage');
    const required = { STRATA_KURRENTDB_URL: cfg.kurrentdbUrl, STRATA_MONGO_URL: cfg.mongoUrl, STRATA_MEILI_URL: cfg.meiliUrl, STRATA_QDRANT_URL: cfg.qdrantUrl };
    for (const [name, value] of Object.entries(required)) if (!value) throw new Error(`STRATA_STORE=servers needs ${name}`);
    const mongo = await new MongoClient(cfg.mongoUrl!, { appName: 'strata-api' }).connect();
    try {
      const db = mongo.db(cfg.mongoDb);
      const graph = new MongoGraphStore(db);
      await graph.ensureIndexes();
      const checkpoints = new MongoCheckpointStore(db, clock);
      const events = new KurrentDbEventStore(cfg.kurrentdbUrl!);
      const text = new MeilisearchTextIndex({ url: cfg.meiliUrl!, apiKey: cfg.meiliKey ?? undefined });
      const vectors = new QdrantVectorIndex({ url: cfg.qdrantUrl!, apiKey: cfg.qdrantKey ?? undefined, clock });
      const projections = new CheckpointWatcher(() => checkpoints.lowest(SERVER_PROJECTION_NAMES));
      log.log(`servers mode: MongoDB database ${cfg.mongoDb}, reads wait up to ${cfg.readWaitMs} ms for projections`);
      return new ServerStorage(mongo, events, graph, checkpoints, text, vectors, projections, cfg.readWaitMs, new MongoActivityStore(db), new MongoJobStore(db), clock);
    } catch (err) {
      await mongo.close();
      throw err;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    this.projections.stop();
    await this.relay?.close();
    await this.events.close();
    await this.text.close();
    await this.vectors.close();
    await this.mongo.close();
  }
}
