import * as fs from 'node:fs';
import * as path from 'node:path';
import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { RecordedEvent } from '@strata/domain/events';
import type { Clock } from '@strata/domain/time';
import { SqliteEventStore } from '@strata/event-store/sqlite/sqlite-event-store';
import { EmbeddedVectorIndex } from '@strata/vector-index/embedded/embedded-vector-index';
import type { VectorHit, VectorQuery } from '@strata/vector-index/vector-index.port';
import { HandoverRequest, HandoverResult, SERVICE_FILE, ServicePresence, readJson, writeJsonAtomic } from '@strata/platform/projections/handover-files';
import { EVENTS_FILE, EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { JobRecord } from '@strata/jobs/job-registry';
import { JobQueue } from '@strata/jobs/queue/job-queue.port';
import { jobRecordOfQueued } from '@strata/jobs/queue/queued-job-record';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { abortable } from '@strata/jobs/runner/abortable';
import { BACKFILL_DEDUPE_KEY, EMBED_ALL_KIND, EmbedAllInput } from './embed-all-job';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import {
  VECTORS_DIR,
  VECTORS_NEXT_DIR,
  VECTORS_REQUEST_FILE,
  VECTORS_RESULT_FILE,
  VECTORS_UPGRADE_DIR,
  VECTORS_UPGRADE_GRAPH_FILE,
  dropPreviousVectors,
  restorePreviousVectors,
  swapInVectorDirs,
} from '@strata/vector-index/embedded/vector-handover-files';
import { VECTOR_PROJECTION_VERSION, VectorProjection } from '@strata/platform/vectors/vector-projection';
import { rebuildVectorIndex } from '@strata/platform/vectors/vector-rebuild';

/** Index and checkpoint are written at most this often while changes keep coming. */
const FLUSH_EVERY_MS = 60_000;
const BACKFILL_CHUNK = 500;
/** how often a hand-over request from `strata projections rebuild vectors` is looked for */
const HANDOVER_POLL_MS = 250;

/**
 * Owns the embedded vector index and its projection: replays the log from the index's
 * checkpoint once the read models are caught up, applies every commit right after it lands
 * (before the writer is answered), persists periodically and at shutdown, and runs the
 * background backfills a configuration change asks for. Takes over an index rebuilt beside
 * it by `strata projections rebuild vectors` (vector-handover-files.ts).
 */
@Injectable()
export class VectorStore implements OnApplicationShutdown {
  private readonly log = new Logger('VectorStore');
  private index: EmbeddedVectorIndex;
  /** replaced as a whole when a rebuilt index is handed over */
  projection: VectorProjection;
  private readonly timer: NodeJS.Timeout;
  private readonly handoverTimer: NodeJS.Timeout;
  /** the backfill job last queued per organization */
  private readonly backfills = new Map<string, Promise<JobRecord | null>>();
  private readonly committedListeners: ((events: RecordedEvent[]) => void)[] = [];
  private closed = false;
  private pending: RecordedEvent[] = [];
  private drainScheduled = false;

  constructor(
    @Inject(EMBEDDED_STORAGE) private readonly storage: EmbeddedStorage,
    private readonly settings: EmbeddingSettings,
    /** the backfills run as durable jobs (the embedding jobs' handler calls `runBackfill`) */
    private readonly jobs: { queue: JobQueue; runner: JobRunner },
    private readonly clock: Clock,
    /** a serving process (not the CLI's application context): it may rebuild beside at start-up */
    private readonly opts: { serving: boolean } = { serving: false },
  ) {
    if (opts.serving) {
      // the index a hand-over replaced, and a rebuild a stop interrupted, left behind by a crash
      dropPreviousVectors(storage.dataDir);
      fs.rmSync(path.join(storage.dataDir, VECTORS_UPGRADE_DIR), { recursive: true, force: true });
    }
    const dir = path.join(storage.dataDir, VECTORS_DIR);
    // the machine went down with the projections unflushed: the index files, written without
    // fsync too, may be torn as well; it is rebuilt from the log with the projections
    if (storage.session.discarded) fs.rmSync(dir, { recursive: true, force: true });
    this.index = new EmbeddedVectorIndex(dir);
    this.projection = new VectorProjection(this.index, storage.graph, settings, dir);
    storage.onCaughtUp(() => this.catchUp());
    storage.onCommitted((events) => this.onCommitted(events));
    this.timer = setInterval(() => this.safeFlush(), FLUSH_EVERY_MS);
    this.timer.unref();
    this.handoverTimer = setInterval(() => this.watchHandover(), HANDOVER_POLL_MS);
    this.handoverTimer.unref();
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

  /** The backfill job last queued for an organization (null: none since this process started). */
  backfillJob(org: string): Promise<JobRecord | null> {
    return this.backfills.get(org) ?? Promise.resolve(null);
  }

  private catchUp(): void {
    const from = this.projection.position;
    const head = this.storage.events.headPositionSync();
    if (from < head) {
      const t0 = performance.now(); // monotonic: only for the log line
      applyLog(this.projection, this.storage.events, from);
      this.projection.flush();
      this.log.log(`vector index caught up from ${from} to ${this.projection.position} (${Math.round(performance.now() - t0)} ms)`);
    }
    for (const org of this.projection.backfillsPending()) this.startBackfill(org);
    if (!this.opts.serving) return;
    // an index past the log's head holds events this log does not have (a log restored from
    // an older backup) and would skip the log's next events as already applied
    if (from > head) void this.rebuildOutdated(`the vector index is at position ${from}, past the event log's head ${head}`);
    else if (this.projection.builtVersion !== VECTOR_PROJECTION_VERSION)
      void this.rebuildOutdated(`vector index built by projection version ${this.projection.builtVersion}, the code is at ${VECTOR_PROJECTION_VERSION}`);
  }

  /**
   * The stored index cannot be kept (built by another version of the projection, or ahead
   * of the log): it keeps serving (far better than no vector search) while a new one is
   * built from the log beside it, between requests, and then swapped in like one the CLI
   * hands over.
   */
  private async rebuildOutdated(why: string): Promise<void> {
    this.log.warn(`${why}: serving it while a copy is rebuilt beside`);
    const t0 = performance.now(); // monotonic: only for the log line
    const log = new SqliteEventStore(this.file(EVENTS_FILE), { readonly: true });
    try {
      await rebuildVectorIndex({
        embedding: { settings: this.settings },
        log,
        dir: this.file(VECTORS_UPGRADE_DIR),
        graphFile: this.file(VECTORS_UPGRADE_GRAPH_FILE),
        yieldBetweenBatches: true,
      });
      if (this.closed) return;
      const position = this.takeOver(VECTORS_UPGRADE_DIR);
      this.log.log(`rebuilt the vector index from the log and swapped it in at position ${position} (${Math.round(performance.now() - t0)} ms)`);
    } catch (err) {
      this.log.error(`rebuild of the vector index failed, still serving the previous version: ${(err as Error).message}`);
    } finally {
      await log.close();
      fs.rmSync(this.file(VECTORS_UPGRADE_DIR), { recursive: true, force: true });
    }
  }

  // ---- hand-over of an index rebuilt beside this one (`strata projections rebuild vectors`) ----

  private file(name: string): string {
    return path.join(this.storage.dataDir, name);
  }

  /** Only the process announced as the data dir's service takes requests (not a CLI's context). */
  private watchHandover(): void {
    if (this.closed || !fs.existsSync(this.file(VECTORS_REQUEST_FILE))) return;
    if (readJson<ServicePresence>(this.file(SERVICE_FILE))?.pid !== process.pid) return;
    const req = readJson<HandoverRequest>(this.file(VECTORS_REQUEST_FILE));
    fs.rmSync(this.file(VECTORS_REQUEST_FILE), { force: true });
    if (!req || typeof req.id !== 'string') return;
    const result: HandoverResult = { id: req.id, ok: false, finished_at: '' };
    try {
      result.position = this.takeOver();
      result.ok = true;
    } catch (err) {
      result.error = (err as Error).message;
      this.log.error(`vector index hand-over failed, still serving the previous index: ${result.error}`);
    } finally {
      result.finished_at = new Date(this.clock.now() * 1000).toISOString();
      writeJsonAtomic(this.file(VECTORS_RESULT_FILE), result);
    }
  }

  /**
   * Swaps the rebuilt index in, synchronously: no commit is delivered and no read answered
   * in between. Commits delivered before are applied to the old index first (its listeners
   * see them once); the new one then catches up from its checkpoint with the committed log,
   * and commits delivered later are applied to it (those it already has are skipped by position).
   */
  private takeOver(built = VECTORS_NEXT_DIR): number {
    const t0 = performance.now(); // monotonic: only for the log line
    this.settle();
    const dataDir = this.storage.dataDir;
    const dir = this.file(VECTORS_DIR);
    swapInVectorDirs(dataDir, built);
    let index: EmbeddedVectorIndex | null = null;
    let projection: VectorProjection;
    // a connection of its own: the write queue's may hold an uncommitted batch
    const log = new SqliteEventStore(this.file(EVENTS_FILE), { readonly: true });
    try {
      index = new EmbeddedVectorIndex(dir);
      projection = new VectorProjection(index, this.storage.graph, this.settings, dir);
      const from = projection.position;
      applyLog(projection, log, from);
      projection.flush(true);
    } catch (err) {
      index?.clearSync(); // never saved: its directory goes back to the previous index
      restorePreviousVectors(dataDir);
      throw err;
    } finally {
      void log.close();
    }
    const old = this.index;
    this.index = index;
    this.projection = projection;
    // its files are gone: it must never be saved again; emptying it also stops its indexing
    old.clearSync();
    dropPreviousVectors(dataDir);
    this.log.log(`took over the vector index rebuilt beside, at position ${projection.position} (${Math.round(performance.now() - t0)} ms)`);
    for (const org of projection.backfillsPending()) this.startBackfill(org);
    return projection.position;
  }

  /**
   * Commits are indexed right after the writer is answered, many commits at a time: one
   * embedding pass and one HNSW insertion per drain (large insertions use every core).
   */
  private onCommitted(events: RecordedEvent[]): void {
    if (this.closed) return;
    for (const e of events) this.pending.push(e); // no spread: a large import commits >120k events at once
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
   * Queues the re-embedding of an organization's live nodes with the built-in embedder, as a
   * durable job: one a stop interrupts is taken up again where it was. While one is pending
   * or running, asking again gives that one back. The organization stays marked for backfill
   * in the index until a run ends, so a cancelled one is queued again at the next start.
   */
  startBackfill(org: string): void {
    const input: EmbedAllInput = { title: 'Re-embed every live node with the configured embedder', reembed: true, backfill: true, total_nodes: this.storage.graph.countNodesSync(org, {}) };
    const queued = this.jobs.queue.enqueue({ kind: EMBED_ALL_KIND, org, input, dedupeKey: BACKFILL_DEDUPE_KEY, progress: { total_nodes: input.total_nodes } }).then(
      ({ job }) => {
        this.jobs.runner.wake();
        return jobRecordOfQueued(job);
      },
      (err: Error) => {
        this.log.error(`queueing the backfill of ${org} failed: ${err.message}`);
        return null;
      },
    );
    this.backfills.set(org, queued);
  }

  /** The backfill job's work: a chunk of nodes per turn of the event loop, so requests keep being served. */
  async runBackfill(org: string, from: number, signal: AbortSignal, onBatch: (offset: number, embedded: number) => Promise<void>): Promise<void> {
    let offset = from;
    for (;;) {
      // closed for a shutdown: the runner's stop aborts the job next, handing it back to the queue
      if (this.closed) await abortable(new Promise<never>(() => undefined), signal);
      signal.throwIfAborted();
      const page = this.storage.graph.listNodesSync(org, {}, { limit: BACKFILL_CHUNK, offset }, 'created_asc');
      const embedded = this.projection.embedNodes(org, page.items);
      offset += page.items.length;
      await onBatch(offset, embedded);
      if (!page.has_more) break;
      await new Promise((r) => setImmediate(r));
    }
    this.projection.backfillDone(org);
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
    clearInterval(this.handoverTimer);
    this.safeFlush();
  }
}

/** Applies the log after `from` to the projection, 5,000 events at a time. */
function applyLog(projection: VectorProjection, log: { iterateAll(after: number, batchSize?: number): Iterable<RecordedEvent> }, from: number): void {
  let batch: RecordedEvent[] = [];
  for (const e of log.iterateAll(from, 5000)) {
    batch.push(e);
    if (batch.length >= 5000) {
      projection.apply(batch);
      batch = [];
    }
  }
  projection.apply(batch);
}
