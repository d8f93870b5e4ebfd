import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { MongoClient } from 'mongodb';
import { KurrentDbEventStore } from '@strata/event-store/kurrentdb/kurrentdb-event-store';
import { MongoCheckpointStore } from '@strata/graph-store/mongo/mongo-checkpoint-store';
import { MongoGraphStore } from '@strata/graph-store/mongo/mongo-graph-store';
import { MongoGraphWriter } from '@strata/graph-store/mongo/mongo-graph-writer';
import { GraphServerProjection } from '@strata/projections/server/graph.server-projection';
import { MongoLeaseStore } from '@strata/projections/server/mongo-lease-store';
import { ServerProjectionRunner } from '@strata/projections/server/server-projection-runner';
import { TextServerProjection } from '@strata/projections/server/text.server-projection';
import { VectorServerProjection } from '@strata/projections/server/vector.server-projection';
import { MeilisearchTextIndex, loadMeilisearchModule } from '@strata/text-index/meilisearch/meilisearch-text-index';
import { DEFAULT_MEILI_INDEX } from '@strata/text-index/meilisearch/meilisearch-translation';
import { QdrantVectorIndex } from '@strata/vector-index/qdrant/qdrant-vector-index';
import type { StrataConfig } from '../../api/src/platform/config/strata-config';
import { EmbedderFactory } from '../../api/src/retrieval/embeddings/embedder-factory';
import { EmbeddingSettings } from '../../api/src/retrieval/embeddings/embedding-settings.service';
import { MongoVectorSource } from './vector-source';

/** A lease outlives a stalled worker by at most this long; a standby then takes over. */
const LEASE_TTL_MS = 15_000;

export interface Projector {
  runner: ServerProjectionRunner;
  close(): Promise<void>;
}

/**
 * Wires the server-mode projections: KurrentDB → MongoDB (graph read model), Meilisearch
 * (full text) and Qdrant (vectors), with checkpoints and the lease in MongoDB. The order of
 * `projections` is the order each batch is applied in: the vector projection reads the graph
 * read model the batch has just updated.
 */
export async function buildProjector(cfg: StrataConfig): Promise<Projector> {
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
    const text = new MeilisearchTextIndex({ client: meili });
    const resetText = async () => {
      await meili.index(DEFAULT_MEILI_INDEX).deleteAllDocuments().waitTask();
    };
    const vectors = new QdrantVectorIndex({ url: cfg.qdrantUrl, apiKey: cfg.qdrantKey ?? undefined });
    const settings = new EmbeddingSettings(cfg, graph, new EmbedderFactory(cfg));
    const vector = new VectorServerProjection(vectors, new MongoVectorSource(graph, settings), () => vectors.removeAll());
    const runner = new ServerProjectionRunner({
      log: events,
      checkpoints: new MongoCheckpointStore(db),
      leases: new MongoLeaseStore(db, { ttlMs: LEASE_TTL_MS }),
      projections: [new GraphServerProjection(new MongoGraphWriter(graph)), new TextServerProjection(text, resetText), vector],
      owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      logger: new Logger('Projector'),
    });
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
