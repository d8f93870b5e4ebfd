import { Inject, Injectable, Logger } from '@nestjs/common';
import { RecordedEvent } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { embeddingTextOf } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { textHash } from '@strata/domain/retrieval/embedding-events';
import { recordProviderVectors } from './embedding-writer';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

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
  /** the drain under way (or about to start), if any */
  private draining: Promise<void> | null = null;
  /** events seen, decided on in order (each decision reads the vector index) */
  private intake: Promise<void> = Promise.resolve();

  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly settings: EmbeddingSettings,
    @Inject(VECTORS) private readonly vectors: Vectors,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {
    vectors.afterIndexed((events) => {
      this.intake = this.intake.then(() => this.onIndexed(events)).catch((err) => this.log.warn(`automatic embedding skipped a batch: ${(err as Error).message}`));
    });
  }

  /** Nodes waiting to be embedded (tests and diagnostics). */
  pending(org: string): number {
    return this.queue.get(org)?.size ?? 0;
  }

  /**
   * Resolves once every batch indexed so far has been decided on and every embedding it
   * queued is recorded (or failed): then no provider call for those events is still to come.
   * For tests, instead of waiting a while to see that none comes.
   */
  async settled(): Promise<void> {
    for (;;) {
      const intake = this.intake;
      await intake;
      if (this.draining) await this.draining;
      else if (intake === this.intake) return;
    }
  }

  private async onIndexed(events: RecordedEvent[]): Promise<void> {
    // the latest live version of each node, per organization
    const byOrg = new Map<string, Map<string, NodeRecord>>();
    for (const e of events) {
      if (e.type !== 'NodeCreated' && e.type !== 'NodeUpdated' && e.type !== 'NodeRestored') continue;
      const org = e.metadata.org_id;
      const n = e.data.node;
      let m = byOrg.get(org);
      if (!m) byOrg.set(org, (m = new Map()));
      if (n.tombstone_at === null) m.set(n.uid, n);
      else m.delete(n.uid);
    }
    for (const [org, nodes] of byOrg) {
      if (!nodes.size) continue;
      const cfg = await this.settings.effective(org);
      if (!cfg || cfg.provider === 'builtin') continue;
      const uids = [...nodes.keys()];
      const pinned = await this.vectors.pinned(org, uids);
      const items = uids.filter((u) => !pinned.has(u)).map((uid) => ({ uid, hash: textHash(embeddingTextOf(nodes.get(uid)!)) }));
      const current = await this.vectors.upToDate(org, items);
      let q = this.queue.get(org);
      for (const { uid, hash } of items) {
        if (current.has(uid)) continue;
        if (!q) this.queue.set(org, (q = new Map()));
        q.set(uid, hash);
      }
    }
    this.scheduleDrain();
  }

  private scheduleDrain(): void {
    if (!this.queue.size || this.draining) return;
    this.draining = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.drain())
      .finally(() => {
        this.draining = null;
        this.scheduleDrain(); // queued while the last batch was being recorded
      });
  }

  private async drain(): Promise<void> {
    while (this.queue.size) {
      const [org, q] = this.queue.entries().next().value as [string, Map<string, string>];
      const uids = [...q.keys()].slice(0, BATCH);
      for (const u of uids) q.delete(u);
      if (!q.size) this.queue.delete(org);
      await this.embedBatch(org, uids);
    }
  }

  private async embedBatch(org: string, uids: string[]): Promise<void> {
    const cfg = await this.settings.effective(org);
    const embedder = this.settings.embedder(cfg);
    if (!cfg || !embedder || cfg.provider === 'builtin') return;
    const nodes = [...(await this.graph.getNodes(org, uids)).values()].filter((n) => n.tombstone_at === null);
    if (!nodes.length) return;
    const texts = nodes.map(embeddingTextOf);
    try {
      const vecs = await embedder.embed(texts);
      const pinned = await this.vectors.pinned(org, nodes.map((n) => n.uid));
      await recordProviderVectors(
        this.uow,
        org,
        cfg.model,
        nodes.map((n, i) => ({ uid: n.uid, vector: vecs[i], text_hash: textHash(texts[i]) })),
        'auto-embed',
        (uid) => pinned.has(uid),
      );
    } catch (err) {
      // nothing was written; POST /ingest/embed-all picks these nodes up later
      this.log.warn(`automatic embedding of ${nodes.length} nodes failed: ${(err as Error).message}`);
    }
  }
}
