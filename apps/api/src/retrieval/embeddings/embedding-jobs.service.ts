import { Inject, Injectable, Logger } from '@nestjs/common';
import { embeddingTextOf } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { JobRecord, JobRegistry } from '@strata/jobs/job-registry';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { textHash } from '@strata/domain/retrieval/embedding-events';
import { recordProviderVectors } from './embedding-writer';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

/** Nodes embedded per provider call and per append. */
const BATCH = 64;

/**
 * Embedding jobs: `POST /ingest/embed-all` (every live node without a vector) and the
 * re-embedding after a model change. Vectors are computed outside any transaction, then
 * recorded as `EmbeddingSet` events a batch at a time; progress is on the job record.
 */
@Injectable()
export class EmbeddingJobs {
  private readonly log = new Logger('EmbeddingJobs');
  /** runs under way, by job id */
  private readonly runs = new Map<string, Promise<void>>();

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
    @Inject(VECTORS) private readonly vectors: Vectors,
    private readonly jobs: JobRegistry,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /** Live nodes still without a vector (vectors only ever belong to live nodes). */
  async pendingCount(org: string): Promise<number> {
    return Math.max(0, (await this.liveCount(org)) - (await this.vectors.count(org)));
  }

  async startEmbedAll(org: string, cfg: EffectiveEmbeddingConfig, opts: { reembed?: boolean } = {}): Promise<JobRecord> {
    const total = opts.reembed ? await this.liveCount(org) : await this.pendingCount(org);
    // checked after the counts, with no await before the job exists: two requests start one job
    const running = this.jobs.active(org, 'embed_all');
    if (running) return running;
    const job = this.jobs.create(org, 'embed_all', opts.reembed ? 'Re-embed every live node' : 'Embed every live node without a vector', total);
    const run = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.run(org, cfg, job, opts.reembed ?? false))
      .finally(() => this.runs.delete(job.id));
    this.runs.set(job.id, run);
    return job;
  }

  /**
   * Resolves once the job's run has returned (at once for a job not running here): then it
   * records nothing more. For tests, instead of waiting a while to see that nothing comes.
   */
  settled(jobId: string): Promise<void> {
    return this.runs.get(jobId) ?? Promise.resolve();
  }

  private liveCount(org: string): Promise<number> {
    return this.graph.countNodes(org, {});
  }

  private async run(org: string, cfg: EffectiveEmbeddingConfig, job: JobRecord, reembed: boolean): Promise<void> {
    const embedder = this.settings.embedder(cfg);
    if (!embedder) {
      this.jobs.update(job, { status: 'failed', error: 'no embedding provider is available' });
      return;
    }
    this.jobs.update(job, { status: 'processing' });
    let offset = 0;
    let embedded = 0;
    let failed = 0;
    let processed = 0;
    try {
      for (;;) {
        if (job.status === 'cancelled') return; // POST /jobs/{id}/cancel or /clear: stop between batches
        const page = await this.graph.listNodes(org, {}, { limit: BATCH, offset }, 'created_asc');
        offset += page.items.length;
        const uids = page.items.map((n) => n.uid);
        const pinned = await this.vectors.pinned(org, uids);
        const indexed = reembed ? new Set<string>() : await this.vectors.indexed(org, uids);
        const toEmbed = page.items.filter((n) => !pinned.has(n.uid) && !indexed.has(n.uid));
        if (toEmbed.length) {
          const texts = toEmbed.map(embeddingTextOf);
          try {
            const vecs = embedder.embedSync ? embedder.embedSync(texts) : await embedder.embed(texts);
            // cancelled while the provider answered: the batch in hand is not recorded
            if ((job.status as string) === 'cancelled') return;
            embedded += await recordProviderVectors(
              this.uow,
              org,
              cfg.model,
              toEmbed.map((n, i) => ({ uid: n.uid, vector: vecs[i], text_hash: textHash(texts[i]) })),
              `job:${job.id}`,
              (uid) => pinned.has(uid),
            );
          } catch (err) {
            failed += toEmbed.length;
            this.log.warn(`embedding batch of job ${job.id} failed: ${(err as Error).message}`);
          }
          processed += toEmbed.length;
        }
        this.jobs.update(job, { progress: { processed_nodes: processed, embedded_nodes: embedded, failed_nodes: failed } });
        if (!page.has_more) break;
        await new Promise((r) => setImmediate(r));
      }
      this.jobs.update(job, {
        status: embedded > 0 || failed === 0 ? 'completed' : 'failed',
        result: { embedded_nodes: embedded, failed_nodes: failed },
        error: failed && !embedded ? 'every embedding batch failed' : null,
      });
    } catch (err) {
      this.jobs.update(job, { status: 'failed', error: (err as Error).message });
    }
  }
}
