import { FactoryProvider } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import { CLOCK, Clock } from '@strata/domain/time';
// type only: the server clients load only in servers mode
import type { ServerStorage } from '@strata/platform/storage/server-storage';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { EmbeddedVectors } from './embedded-vectors';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { VectorStore } from './vector-store.service';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

/** The Vectors seam bound once, from STRATA_STORE: the embedded index here, or Qdrant. */
export const VECTORS_PROVIDER: FactoryProvider<Vectors> = {
  provide: VECTORS,
  inject: [EMBEDDED_STORAGE, SERVER_STORAGE, EmbeddingSettings, JOB_QUEUE, JobRunner, HttpAdapterHost, CLOCK],
  useFactory: async (
    embedded: EmbeddedStorage | null,
    servers: ServerStorage | null,
    settings: EmbeddingSettings,
    queue: JobQueue,
    runner: JobRunner,
    http: HttpAdapterHost,
    clock: Clock,
  ) => {
    if (embedded) return new EmbeddedVectors(new VectorStore(embedded, settings, { queue, runner }, clock, { serving: Boolean(http?.httpAdapter) }));
    const { serverVectors } = await import('./server-vectors.factory');
    // an application context (the CLI) serves no writes of its own: it never takes the
    // automatic-embedding feed from a running API replica
    return serverVectors(servers!, { feed: Boolean(http?.httpAdapter), clock });
  },
};
