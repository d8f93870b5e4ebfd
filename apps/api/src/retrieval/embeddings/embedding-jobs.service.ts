import { Inject, Injectable, Logger } from '@nestjs/common';
import { embeddingTextOf } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { UNIT_OF_WORK, UnitOfWork } from '../../platform/unit-of-work/unit-of-work.port';
import { JobRecord, JobRegistry } from '../jobs/job-registry';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from './embedding-settings.service';
import { textHash } from './embedding-events';
import { recordProviderVectors } from './embedding-writer';
import { VectorStore } from './vector-store.service';

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

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
    private readonly vectors: VectorStore,
    private readonly jobs: JobRegistry,
  ) {}

  /** Live nodes still without a vector (vectors only ever belong to live nodes). */
  pendingCount(org: string): number {
    return Math.max(0, this.liveCount(org) - this.vectors.count(org));
  }

  startEmbedAll(org: string, cfg: EffectiveEmbeddingConfig, opts: { reembed?: boolean } = {}): JobRecord {
    const running = this.jobs.active(org, 'embed_all');
    if (running) return running;
    const total = opts.reembed ? this.liveCount(org) : this.pendingCount(org);
    const job = this.jobs.create(org, 'embed_all', opts.reembed ? 'Re-embed every live node' : 'Embed every live node without a vector', total);
    setImmediate(() => void this.run(org, cfg, job, opts.reembed ?? false));
    return job;
  }

  private liveCount(org: string): number {
    return this.vectors.storageGraph.countNodesSync(org, {});
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
        const page = this.vectors.storageGraph.listNodesSync(org, {}, { limit: BATCH, offset }, 'created_asc');
        offset += page.items.length;
        const toEmbed = page.items.filter(
          (n: NodeRecord) => !this.vectors.projection.isPinned(org, n.uid) && (reembed || this.vectors.vectorOf(org, n.uid) === undefined),
        );
        if (toEmbed.length) {
          const texts = toEmbed.map(embeddingTextOf);
          try {
            const vecs = embedder.embedSync ? embedder.embedSync(texts) : await embedder.embed(texts);
            embedded += await recordProviderVectors(
              this.uow,
              org,
              cfg.model,
              toEmbed.map((n, i) => ({ uid: n.uid, vector: vecs[i], text_hash: textHash(texts[i]) })),
              `job:${job.id}`,
              (uid) => this.vectors.projection.isPinned(org, uid),
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
