import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { MongoClient } from 'mongodb';
import type { EventStore } from '@strata/event-store/event-store.port';
import type { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { KurrentDbEventStore } from '@strata/event-store/kurrentdb/kurrentdb-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { MongoGraphStore } from '@strata/graph-store/mongo/mongo-graph-store';
import { MongoGraphWriter } from '@strata/graph-store/mongo/mongo-graph-writer';
import type { LeaseTerms } from '@strata/projections/lease/lease';
import { GraphServerProjection, GraphWriterPort } from '@strata/projections/server/graph.server-projection';
import { MongoLeaseStore } from '@strata/projections/server/mongo-lease-store';
import { CheckpointStorePort, LeaseStorePort, RunnerLogger, ServerProjectionRunner } from '@strata/projections/server/server-projection-runner';
import { TextServerProjection } from '@strata/projections/server/text.server-projection';
import { VectorServerProjection } from '@strata/projections/server/vector.server-projection';
import { MeilisearchTextIndex, loadMeilisearchModule } from '@strata/text-index/meilisearch/meilisearch-text-index';
import { DEFAULT_MEILI_INDEX } from '@strata/text-index/meilisearch/meilisearch-translation';
import type { TextIndex } from '@strata/text-index/text-index.port';
import { QdrantVectorIndex } from '@strata/vector-index/qdrant/qdrant-vector-index';
import type { VectorIndex } from '@strata/vector-index/vector-index.port';
import type { StrataConfig } from '@strata/platform/config/strata-config';
import type { EmbeddingOriginReads } from '@strata/platform/storage/server-stores';
import { EmbedderFactory } from '@strata/platform/embeddings/embedder-factory';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { ReadModelVectorSource } from './vector-source';
import type { Clock } from '@strata/domain/time';

/** A lease outlives a stalled worker by at most this long; a standby then takes over. */
const LEASE_TTL_MS = 15_000;

export interface Projector {
  runner: ServerProjectionRunner;
  close(): Promise<void>;
}

/** The stores the worker writes, as ports (KurrentDB, MongoDB, Meilisearch, Qdrant in production). */
export interface ProjectorStores {
  events: EventStore;
  checkpoints: CheckpointStorePort;
  leases(terms: LeaseTerms): LeaseStorePort;
  /** the graph read model the vector projection consults after the graph projection wrote it */
  graph: GraphReadModel & EmbeddingOriginReads;
  graphWriter: GraphWriterPort;
  text: TextIndex;
  /** empties the full-text index of every organization (the port has no such call) */
  resetText(): Promise<void>;
  vectors: VectorIndex;
  /** drops every organization's vectors (the port has no such call) */
  resetVectors(): Promise<void>;
}

export interface ProjectorOptions {
  owner?: string;
  leaseTtlMs?: number;
  retryDelayMs?: number;
  logger?: RunnerLogger;
}

/**
 * The worker's projections over its stores. The order of `projections` is the order each batch
 * is applied in: the vector projection reads the graph read model the batch has just updated.
 */
export function assembleProjector(cfg: StrataConfig, stores: ProjectorStores, clock: Clock, o: ProjectorOptions = {}): ServerProjectionRunner {
  const settings = new EmbeddingSettings(cfg, stores.graph, new EmbedderFactory(cfg, clock));
  const vector = new VectorServerProjection(stores.vectors, new ReadModelVectorSource(stores.graph, settings), () => stores.resetVectors());
  return new ServerProjectionRunner({
    log: stores.events,
    checkpoints: stores.checkpoints,
    leases: stores.leases({ ttlMs: o.leaseTtlMs ?? LEASE_TTL_MS }),
    projections: [new GraphServerProjection(stores.graphWriter), new TextServerProjection(stores.text, () => stores.resetText()), vector],
    owner: o.owner ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    retryDelayMs: o.retryDelayMs,
    logger: o.logger ?? new Logger('Projector'),
    clock,
  });
}

/**
 * Wires the server-mode projections: KurrentDB → MongoDB (graph read model), Meilisearch
 * (full text) and Qdrant (vectors), with checkpoints and the lease in MongoDB.
 */
export async function buildProjector(cfg: StrataConfig, clock: Clock): Promise<Projector> {
  if (cfg.store !== 'servers' || !cfg.kurrentdbUrl || !cfg.mongoUrl || !cfg.meiliUrl || !cfg.qdrantUrl)
    throw new Error('the projection worker runs in servers mode: set STRATA_STORE=servers and the server URLs');
  const mongo = await new MongoClient(cfg.mongoUrl, { appName: 'strata-worker' }).connect();
  try {
    const db = mongo.db(cfg.mongoDb);
    const graph = new MongoGraphStore(db);
    await graph.ensureIndexes();
    const events = new KurrentDbEventStore(cfg.kurrentdbUrl);
    const { Meilisearch } = loadMeilisearchModule();
    const meili = new Meilisearch({ host: cfg.meiliUrl, apiKey: cfg.meiliKey ?? undefined });
    const vectors = new QdrantVectorIndex({ url: cfg.qdrantUrl, apiKey: cfg.qdrantKey ?? undefined, clock });
    const runner = assembleProjector(cfg, {
      events,
      checkpoints: new MongoCheckpointStore(db, clock),
      leases: (terms) => new MongoLeaseStore(db, terms, clock),
      graph,
      graphWriter: new MongoGraphWriter(graph),
      text: new MeilisearchTextIndex({ client: meili }),
      resetText: async () => {
        await meili.index(DEFAULT_MEILI_INDEX).deleteAllDocuments().waitTask();
      },
      vectors,
      resetVectors: () => vectors.removeAll(),
    }, clock);
    return {
      runner,
      close: async () => {
        await runner.stop();
        await events.close();
        await vectors.close();
        await mongo.close();
      },
    };
  } catch (err) {
    await mongo.close();
    throw err;
  }
}
