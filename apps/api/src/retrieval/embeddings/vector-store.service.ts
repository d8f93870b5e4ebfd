import * as path from 'node:path';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { RecordedEvent } from '@strata/domain/events';
import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import type { VectorHit, VectorQuery } from '@strata/vector-index/vector-index.port';
import { EmbeddedStorage } from '../../platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '../../platform/storage/storage.tokens';
import { JobRecord, JobRegistry } from '../jobs/job-registry';
import { EmbeddingSettings } from './embedding-settings.service';
import { VectorProjection } from './vector-projection';

export const VECTORS_DIR = 'vectors';
/** Index and checkpoint are written at most this often while changes keep coming. */
const FLUSH_EVERY_MS = 60_000;
const BACKFILL_CHUNK = 500;

/**
 * Owns the embedded vector index and its projection: replays the log from the index's
 * checkpoint once the read models are caught up, applies every commit right after it lands
 * (before the writer is answered), persists periodically and at shutdown, and runs the
 * background backfills a configuration change asks for.
 */
@Injectable()
export class VectorStore implements OnApplicationShutdown {
  private readonly log = new Logger('VectorStore');
  private readonly index: EmbeddedVectorIndex;
  readonly projection: VectorProjection;
  private readonly timer: NodeJS.Timeout;
  private readonly backfilling = new Map<string, JobRecord>();
  private readonly committedListeners: ((events: RecordedEvent[]) => void)[] = [];
  private closed = false;
  private pending: RecordedEvent[] = [];
  private drainScheduled = false;

  constructor(
    @Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage,
    settings: EmbeddingSettings,
    private readonly jobs: JobRegistry,
  ) {
    const dir = path.join(storage.dataDir, VECTORS_DIR);
    this.index = new EmbeddedVectorIndex(dir);
    this.projection = new VectorProjection(this.index, storage.graph, settings, dir);
    storage.vectorStats = (org) => ({ count: this.index.countSync(org), backlog: this.index.pendingCount(org) });
    storage.onCaughtUp(() => this.catchUp());
    storage.onCommitted((events) => this.onCommitted(events));
    this.timer = setInterval(() => this.safeFlush(), FLUSH_EVERY_MS);
    this.timer.unref();
  }

  // ---- reads: each settles pending commits first (read-your-writes) ----

  search(q: VectorQuery): VectorHit[] {
    this.settle();
    return this.index.searchSync(q);
  }

  vectorOf(org: string, uid: string): number[] | undefined {
    this.settle();
    return this.index.getVector(org, uid);
  }

  count(org: string): number {
    this.settle();
    return this.index.countSync(org);
  }

  /** The SQLite read model the projection reads (nodes to embed, stored vectors). */
  get storageGraph() {
    return this.storage.graph;
  }

  /** Post-projection listeners (the auto-embedder) see events after the index has them. */
  afterIndexed(listener: (events: RecordedEvent[]) => void): void {
    this.committedListeners.push(listener);
  }

  /** The backfill job of an organization, while one runs. */
  backfillJob(org: string): JobRecord | null {
    return this.backfilling.get(org) ?? null;
  }

  private catchUp(): void {
    const from = this.projection.position;
    const head = this.storage.events.headPositionSync();
    if (from < head) {
      const t0 = Date.now();
      let batch: RecordedEvent[] = [];
      for (const e of this.storage.events.iterateAll(from, 5000)) {
        batch.push(e);
        if (batch.length >= 5000) {
          this.projection.apply(batch);
          batch = [];
        }
      }
      this.projection.apply(batch);
      this.projection.flush();
      this.log.log(`vector index caught up from ${from} to ${this.projection.position} (${Date.now() - t0} ms)`);
    }
    for (const org of this.projection.backfillsPending()) this.startBackfill(org);
  }

  /**
   * Commits are indexed right after the writer is answered, many commits at a time: one
   * embedding pass and one HNSW insertion per drain (large insertions use every core).
   */
  private onCommitted(events: RecordedEvent[]): void {
    if (this.closed) return;
    this.pending.push(...events);
    if (!this.drainScheduled) {
      this.drainScheduled = true;
      setImmediate(() => this.settle());
    }
  }

  /**
   * Applies every committed event not yet indexed. Vector reads call it first, so a client
   * always finds the vectors of its own acknowledged writes.
   */
  settle(): void {
    this.drainScheduled = false;
    if (!this.pending.length || this.closed) return;
    const events = this.pending;
    this.pending = [];
    this.projection.apply(events);
    for (const e of events) if (e.type === 'EmbeddingConfigured' || e.type === 'GraphCleared') this.backfillIfPending(e.metadata.org_id);
    for (const l of this.committedListeners) l(events);
  }

  private backfillIfPending(org: string): void {
    if (this.projection.backfillsPending().includes(org)) this.startBackfill(org);
  }

  /**
   * Re-embeds an organization's live nodes with the built-in embedder, a chunk per tick so
   * requests keep being served. Restarts from the beginning if asked again while running.
   */
  startBackfill(org: string): JobRecord {
    const running = this.backfilling.get(org);
    if (running) return running;
    const total = this.storage.graph.countNodesSync(org, {});
    const job = this.jobs.create(org, 'embed_all', 'Re-embed every live node with the configured embedder', total);
    this.backfilling.set(org, job);
    let offset = 0;
    const step = () => {
      if (this.closed) return;
      try {
        if (offset === 0) this.jobs.update(job, { status: 'processing' });
        const page = this.storage.graph.listNodesSync(org, {}, { limit: BACKFILL_CHUNK, offset }, 'created_asc');
        const embedded = this.projection.embedNodes(org, page.items);
        offset += page.items.length;
        this.jobs.update(job, { progress: { processed_nodes: offset, embedded_nodes: job.progress.embedded_nodes + embedded } });
        if (page.has_more) return void setImmediate(step);
        this.projection.backfillDone(org);
        this.backfilling.delete(org);
        this.jobs.update(job, { status: 'completed', result: { embedded_nodes: job.progress.embedded_nodes } });
      } catch (err) {
        this.backfilling.delete(org);
        this.jobs.update(job, { status: 'failed', error: (err as Error).message });
        this.log.error(`backfill of ${org} failed: ${(err as Error).message}`);
      }
    };
    setImmediate(step);
    return job;
  }

  private safeFlush(): void {
    try {
      this.projection.flush();
    } catch (err) {
      this.log.error(`vector index flush failed: ${(err as Error).message}`);
    }
  }

  onApplicationShutdown(): void {
    if (this.closed) return;
    try {
      this.settle();
    } catch (err) {
      this.log.error(`indexing at shutdown failed (the next start catches up): ${(err as Error).message}`);
    }
    this.closed = true;
    clearInterval(this.timer);
    this.safeFlush();
  }
}
