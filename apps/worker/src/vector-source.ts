import { NodeRecord } from '@strata/domain/records';
import type { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { VectorProjectionSource } from '@strata/projections/server/vector.server-projection';
import type { VectorSpaceOf } from '@strata/projections/vector-writes';
import type { EmbeddingOriginReads } from '@strata/platform/storage/server-stores';
import type { EffectiveEmbeddingConfig, EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';

/** The space the vector projection maintains for a configuration (null: embeddings off). */
export function vectorSpaceOf(cfg: EffectiveEmbeddingConfig | null): VectorSpaceOf | null {
  return cfg ? { dimensions: cfg.dimensions, metric: cfg.distance_metric, builtin: cfg.provider === 'builtin' } : null;
}

/**
 * What the worker's vector projection reads: the graph read model (MongoDB; just written by
 * the graph projection) and the API's own embedding rules, so both modes pick the same
 * configuration and the same built-in vectors. Only the built-in embedder is ever run here.
 */
export class ReadModelVectorSource implements VectorProjectionSource {
  constructor(
    private readonly graph: GraphReadModel & EmbeddingOriginReads,
    private readonly settings: EmbeddingSettings,
  ) {}

  async space(org: string): Promise<VectorSpaceOf | null> {
    return vectorSpaceOf(await this.settings.effective(org));
  }

  async pinned(org: string, uids: string[]): Promise<Set<string>> {
    if (!uids.length) return new Set();
    const origins = await this.graph.embeddingOrigins(org, uids);
    return new Set([...origins].filter(([, o]) => o.source === 'explicit').map(([uid]) => uid));
  }

  async storedVectors(org: string, uids: string[]): Promise<Map<string, number[]>> {
    if (!uids.length) return new Map();
    return new Map([...(await this.graph.getEmbeddings(org, uids))].map(([uid, e]) => [uid, e.vector]));
  }

  async nodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>> {
    return uids.length ? this.graph.getNodes(org, uids) : new Map();
  }

  liveNodes(org: string, page: { limit: number; offset: number }): Promise<{ items: NodeRecord[]; has_more: boolean }> {
    return this.graph.listNodes(org, {}, page, 'created_asc');
  }

  embed(space: VectorSpaceOf, texts: string[]): number[][] {
    const embedder = this.settings.embedder({ provider: 'builtin', model: '', dimensions: space.dimensions, distance_metric: space.metric, configured_at: null });
    if (!embedder?.embedSync) throw new Error('internal: the built-in embedder embeds synchronously');
    return embedder.embedSync(texts);
  }
}
