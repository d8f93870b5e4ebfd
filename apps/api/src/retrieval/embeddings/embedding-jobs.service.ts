import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { embeddingTextOf } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { JobRecord, JobRegistry } from '@strata/jobs/job-registry';
import { JOB_QUEUE, JobQueue, QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { jobRecordOfQueued } from '@strata/jobs/queue/queued-job-record';
import { JobContext, JobHandler, JobRunner } from '@strata/jobs/runner/job-runner';
import { abortable } from '@strata/jobs/runner/abortable';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { textHash } from '@strata/domain/retrieval/embedding-events';
import { recordProviderVectors } from './embedding-writer';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';
import { BACKFILL_DEDUPE_KEY, EMBED_ALL_DEDUPE_KEY, EMBED_ALL_KIND, EmbedAllInput } from './embed-all-job';

/** Nodes embedded per provider call and per append. */
const BATCH = 64;
const KIND = EMBED_ALL_KIND;

/** Where a job resumes after its runner stopped: the next node (in creation order) and the counts so far. */
interface EmbedAllCursor {
  offset: number;
  processed: number;
  embedded: number;
  failed: number;
}

/**
 * Embedding jobs on the durable runner: `POST /ingest/embed-all` (every live node without a
 * vector), the re-embedding after a model change, and the built-in embedder's backfill (the
 * embedded vector store queues it and does its work). Vectors are computed outside any
 * transaction, then recorded as `EmbeddingSet` events a batch at a time; each batch moves the
 * job's checkpoint, so a job a stop or a crash interrupted resumes where it was, on whichever
 * process claims it. One job per organization at a time (a dedupe key).
 */
@Injectable()
export class EmbeddingJobs implements JobHandler, OnModuleInit {
  private readonly log = new Logger('EmbeddingJobs');

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
    @Inject(VECTORS) private readonly vectors: Vectors,
    private readonly registry: JobRegistry,
    private readonly runner: JobRunner,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  onModuleInit(): void {
    this.runner.register(KIND, this);
    // a cancel drops the batch in hand rather than waiting for the provider
    this.registry.onDurableKind(KIND, { stopsAtOnce: true });
  }

  /** Live nodes still without a vector (vectors only ever belong to live nodes). */
  async pendingCount(org: string): Promise<number> {
    return Math.max(0, (await this.liveCount(org)) - (await this.vectors.count(org)));
  }

  /** Queues the job, or gives back the organization's embedding job under way. */
  async startEmbedAll(org: string, opts: { reembed?: boolean } = {}): Promise<JobRecord> {
    // the built-in embedder's backfill is the organization's embedding job while it runs
    const backfill = (await this.queue.list(org, { kind: KIND })).find((j) => j.dedupe_key === BACKFILL_DEDUPE_KEY && (j.status === 'pending' || j.status === 'running'));
    if (backfill) return jobRecordOfQueued(backfill)!;
    const reembed = opts.reembed ?? false;
    const input: EmbedAllInput = {
      title: reembed ? 'Re-embed every live node' : 'Embed every live node without a vector',
      reembed,
      total_nodes: reembed ? await this.liveCount(org) : await this.pendingCount(org),
    };
    const { job } = await this.queue.enqueue({ kind: KIND, org, input, dedupeKey: EMBED_ALL_DEDUPE_KEY, progress: { total_nodes: input.total_nodes } });
    this.runner.wake();
    return jobRecordOfQueued(job)!;
  }

  /**
   * Resolves once the job has stopped running in this process (at once for a job not running
   * here): then it records nothing more. For tests, instead of waiting a while to see that nothing comes.
   */
  settled(jobId: string): Promise<void> {
    return this.runner.settledJob(jobId);
  }

  async run(job: QueuedJob, ctx: JobContext): Promise<unknown> {
    const input = job.input as EmbedAllInput;
    if (input.backfill) return this.backfill(job, input, ctx);
    const cfg = await this.settings.effective(job.org);
    const embedder = cfg ? this.settings.embedder(cfg) : null;
    if (!cfg || !embedder) throw new Error('no embedding provider is available');
    const at: EmbedAllCursor = { offset: 0, processed: 0, embedded: 0, failed: 0, ...(job.checkpoint as EmbedAllCursor | null) };
    const progress = () => ({ total_nodes: input.total_nodes, processed_nodes: at.processed, embedded_nodes: at.embedded, failed_nodes: at.failed });
    await ctx.progress(progress());
    for (;;) {
      // cancel, clear, shutdown or a lost lease: stop between batches (the runner records why)
      ctx.signal.throwIfAborted();
      const page = await this.graph.listNodes(job.org, {}, { limit: BATCH, offset: at.offset }, 'created_asc');
      const uids = page.items.map((n) => n.uid);
      const pinned = await this.vectors.pinned(job.org, uids);
      const indexed = input.reembed ? new Set<string>() : await this.vectors.indexed(job.org, uids);
      const toEmbed = page.items.filter((n) => !pinned.has(n.uid) && !indexed.has(n.uid));
      if (toEmbed.length) {
        const texts = toEmbed.map(embeddingTextOf);
        try {
          const vecs = embedder.embedSync ? embedder.embedSync(texts) : await abortable(embedder.embed(texts), ctx.signal);
          // stopped while the provider answered: the batch in hand is not recorded
          ctx.signal.throwIfAborted();
          at.embedded += await recordProviderVectors(
            this.uow,
            job.org,
            cfg.model,
            toEmbed.map((n, i) => ({ uid: n.uid, vector: vecs[i], text_hash: textHash(texts[i]) })),
            `job:${job.id}`,
            (uid) => pinned.has(uid),
          );
        } catch (err) {
          if (ctx.signal.aborted) throw err;
          at.failed += toEmbed.length;
          this.log.warn(`embedding batch of job ${job.id} failed: ${(err as Error).message}`);
        }
        at.processed += toEmbed.length;
      }
      at.offset += page.items.length;
      await ctx.checkpoint(at, progress());
      if (!page.has_more) break;
      await new Promise((r) => setImmediate(r));
    }
    if (at.failed && !at.embedded) throw new Error('every embedding batch failed');
    return { embedded_nodes: at.embedded, failed_nodes: at.failed };
  }

  private async backfill(job: QueuedJob, input: EmbedAllInput, ctx: JobContext): Promise<unknown> {
    const at = { offset: 0, embedded: 0, ...(job.checkpoint as { offset: number; embedded: number } | null) };
    const progress = () => ({ total_nodes: input.total_nodes, processed_nodes: at.offset, embedded_nodes: at.embedded, failed_nodes: 0 });
    await ctx.progress(progress());
    await this.vectors.runBackfill(job.org, at.offset, ctx.signal, async (offset, embedded) => {
      at.offset = offset;
      at.embedded += embedded;
      await ctx.checkpoint(at, progress());
    });
    return { embedded_nodes: at.embedded };
  }

  private liveCount(org: string): Promise<number> {
    return this.graph.countNodes(org, {});
  }
}
