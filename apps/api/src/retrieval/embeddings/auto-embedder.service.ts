import { Inject, Injectable, Logger } from '@nestjs/common';
import { NodeVersionedData, RecordedEvent } from '@strata/domain/events';
import { embeddingTextOf } from '@strata/domain/retrieval';
import { UNIT_OF_WORK, UnitOfWork } from '../../platform/unit-of-work/unit-of-work.port';
import { EmbeddingSettings } from './embedding-settings.service';
import { textHash } from './embedding-events';
import { recordProviderVectors } from './embedding-writer';
import { VectorStore } from './vector-store.service';

const BATCH = 64;

/**
 * Automatic embedding with an external provider (REFERENCE §8.7): after a commit, nodes
 * whose embedded text changed are queued; a worker embeds them outside any request and
 * records the vectors as events. Replays never queue anything, so a rebuild never calls the
 * provider. (With the built-in embedder the vector projection does this itself.)
 */
@Injectable()
export class AutoEmbedder {
  private readonly log = new Logger('AutoEmbedder');
  /** org → uid → text hash at queue time */
  private readonly queue = new Map<string, Map<string, string>>();
  private running = false;

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
    private readonly vectors: VectorStore,
  ) {
    vectors.afterIndexed((events) => this.onIndexed(events));
  }

  /** Nodes waiting to be embedded (tests and diagnostics). */
  pending(org: string): number {
    return this.queue.get(org)?.size ?? 0;
  }

  private onIndexed(events: RecordedEvent[]): void {
    for (const e of events) {
      if (e.type !== 'NodeCreated' && e.type !== 'NodeUpdated' && e.type !== 'NodeRestored') continue;
      const org = e.metadata.org_id;
      const n = (e.data as NodeVersionedData).node;
      if (n.tombstone_at !== null) continue;
      const cfg = this.vectors.projection.config(org);
      if (!cfg || cfg.provider === 'builtin' || this.vectors.projection.isPinned(org, n.uid)) continue;
      const hash = textHash(embeddingTextOf(n));
      if (this.vectors.projection.providerHash(org, n.uid) === hash && this.vectors.projection.index.getVector(org, n.uid)) continue;
      let q = this.queue.get(org);
      if (!q) this.queue.set(org, (q = new Map()));
      q.set(n.uid, hash);
    }
    if (this.queue.size && !this.running) setImmediate(() => void this.drain());
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.queue.size) {
        const [org, q] = this.queue.entries().next().value as [string, Map<string, string>];
        const uids = [...q.keys()].slice(0, BATCH);
        for (const u of uids) q.delete(u);
        if (!q.size) this.queue.delete(org);
        await this.embedBatch(org, uids);
      }
    } finally {
      this.running = false;
    }
  }

  private async embedBatch(org: string, uids: string[]): Promise<void> {
    const cfg = this.vectors.projection.config(org);
    const embedder = this.settings.embedder(cfg);
    if (!cfg || !embedder || cfg.provider === 'builtin') return;
    const nodes = [...this.vectors.storageGraph.getNodesSync(org, uids).values()].filter((n) => n.tombstone_at === null);
    if (!nodes.length) return;
    const texts = nodes.map(embeddingTextOf);
    try {
      const vecs = await embedder.embed(texts);
      await recordProviderVectors(
        this.uow,
        org,
        cfg.model,
        nodes.map((n, i) => ({ uid: n.uid, vector: vecs[i], text_hash: textHash(texts[i]) })),
        'auto-embed',
        (uid) => this.vectors.projection.isPinned(org, uid),
      );
    } catch (err) {
      // nothing was written; POST /ingest/embed-all picks these nodes up later
      this.log.warn(`automatic embedding of ${nodes.length} nodes failed: ${(err as Error).message}`);
    }
  }
}
