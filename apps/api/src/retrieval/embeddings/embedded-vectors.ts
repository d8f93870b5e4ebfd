import { OnApplicationShutdown } from '@nestjs/common';
import type { RecordedEvent } from '@strata/domain/events';
import type { VectorHit, VectorQuery } from '@strata/vector-index/vector-index.port';
import type { JobRecord } from '@strata/jobs/job-registry';
import type { VectorStore } from './vector-store.service';
import type { VectorCounts, Vectors } from '@strata/platform/embeddings/vectors.port';

/**
 * The embedded default behind the Vectors seam: today's VectorStore (index in this process,
 * applied right after each commit), each answer settled first so it shows acknowledged writes.
 */
export class EmbeddedVectors implements Vectors, OnApplicationShutdown {
  constructor(readonly store: VectorStore) {}

  async search(q: VectorQuery): Promise<VectorHit[]> {
    return this.store.search(q);
  }

  async vectorOf(org: string, uid: string): Promise<number[] | undefined> {
    return this.store.vectorOf(org, uid);
  }

  async indexed(org: string, uids: string[]): Promise<Set<string>> {
    this.store.settle();
    return new Set(uids.filter((u) => this.store.projection.index.getVector(org, u) !== undefined));
  }

  async count(org: string): Promise<number> {
    return this.store.count(org);
  }

  async counts(org: string): Promise<VectorCounts> {
    const count = this.store.count(org);
    return { count, backlog: this.store.projection.index.pendingCount(org) };
  }

  async pinned(org: string, uids: string[]): Promise<Set<string>> {
    this.store.settle();
    return new Set(uids.filter((u) => this.store.projection.isPinned(org, u)));
  }

  async upToDate(org: string, items: { uid: string; hash: string }[]): Promise<Set<string>> {
    this.store.settle();
    const p = this.store.projection;
    return new Set(items.filter((i) => p.providerHash(org, i.uid) === i.hash && p.index.getVector(org, i.uid) !== undefined).map((i) => i.uid));
  }

  afterIndexed(listener: (events: RecordedEvent[]) => void): void {
    this.store.afterIndexed(listener);
  }

  async settle(): Promise<void> {
    this.store.settle();
  }

  backfillJob(org: string): Promise<JobRecord | null> {
    return this.store.backfillJob(org);
  }

  runBackfill(org: string, from: number, signal: AbortSignal, onBatch: (offset: number, embedded: number) => Promise<void>): Promise<void> {
    return this.store.runBackfill(org, from, signal, onBatch);
  }

  onApplicationShutdown(): void {
    this.store.onApplicationShutdown();
  }
}
