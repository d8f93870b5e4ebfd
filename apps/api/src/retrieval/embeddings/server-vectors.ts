import { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { RecordedEvent } from '@strata/domain/events';
import type { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { VectorHit, VectorQuery } from '@strata/vector-index/vector-index.port';
import type { EmbeddingOriginReads, ServerVectorIndex } from '@strata/platform/storage/server-stores';
import type { JobRecord } from '@strata/jobs/job-registry';
import type { VectorCounts, Vectors } from '@strata/platform/embeddings/vectors.port';

/** Starts and stops the feed of committed events (a ServerProjectionRunner in production). */
export interface EventFeed {
  start(): void;
  stop(): Promise<void>;
}

/**
 * Server mode behind the Vectors seam: vectors are read from Qdrant, which the projection
 * worker keeps (a write has waited for its checkpoint before it is answered, so there is
 * nothing to settle here); who produced a recorded vector is read from the MongoDB read model.
 * Re-embedding after a built-in configuration is the worker's, so no backfill job runs here.
 */
export class ServerVectors implements Vectors, OnApplicationBootstrap, OnApplicationShutdown {
  private readonly listeners: ((events: RecordedEvent[]) => void)[] = [];

  constructor(
    private readonly index: ServerVectorIndex,
    private readonly graph: Pick<GraphReadModel, 'getEmbedding'> & Pick<EmbeddingOriginReads, 'embeddingOrigins'>,
    /** built with a deliver callback that calls `deliver` below */
    private readonly feed: EventFeed | null = null,
  ) {}

  search(q: VectorQuery): Promise<VectorHit[]> {
    return this.index.search(q);
  }

  /** The recorded vector when there is one (Qdrant keeps cosine vectors normalised), else the indexed one. */
  async vectorOf(org: string, uid: string): Promise<number[] | undefined> {
    const live = await this.index.getVector(org, uid);
    if (!live) return undefined;
    const stored = await this.graph.getEmbedding(org, uid);
    return stored && stored.vector.length === live.length ? stored.vector : live;
  }

  indexed(org: string, uids: string[]): Promise<Set<string>> {
    return this.index.has(org, uids);
  }

  count(org: string): Promise<number> {
    return this.index.count(org);
  }

  async counts(org: string): Promise<VectorCounts> {
    // Qdrant indexes each write before answering it (wait: true): no backlog is kept
    return { count: await this.index.count(org), backlog: 0 };
  }

  async pinned(org: string, uids: string[]): Promise<Set<string>> {
    const origins = await this.graph.embeddingOrigins(org, uids);
    return new Set([...origins].filter(([, o]) => o.source === 'explicit').map(([uid]) => uid));
  }

  async upToDate(org: string, items: { uid: string; hash: string }[]): Promise<Set<string>> {
    const origins = await this.graph.embeddingOrigins(org, items.map((i) => i.uid));
    const same = items.filter((i) => origins.get(i.uid)?.text_hash === i.hash).map((i) => i.uid);
    return same.length ? this.index.has(org, same) : new Set();
  }

  afterIndexed(listener: (events: RecordedEvent[]) => void): void {
    this.listeners.push(listener);
  }

  /** Called by the feed with committed events the read models show. */
  deliver(events: RecordedEvent[]): void {
    for (const l of this.listeners) l(events);
  }

  async settle(): Promise<void> {
    // every acknowledged write already waited for the vector projection's checkpoint
  }

  async backfillJob(_org: string): Promise<JobRecord | null> {
    return null;
  }

  /** the Qdrant projection embeds with the built-in embedder as it projects: there is no backfill to run */
  async runBackfill(): Promise<void> {
    throw new Error('the built-in embedder backfill runs on the embedded default only');
  }

  onApplicationBootstrap(): void {
    this.feed?.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.feed?.stop();
  }
}
