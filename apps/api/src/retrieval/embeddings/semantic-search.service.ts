import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { compareScored } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { VectorHit } from '@strata/vector-index/vector-index.port';
import { liveNodesInOrder } from '../shared/node-loader';
import { ReadScope } from '../shared/read-scope';
import { ScoredNode } from '../search/text-search.service';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from './embedding-settings.service';
import { Embedder } from './embedder-factory';
import { VECTORS, Vectors } from './vectors.port';

export interface VectorSearchOptions {
  k: number;
  node_types?: string[];
  exclude_node_types?: string[];
  layer?: string;
  threshold?: number;
}

/** Vector similarity over live nodes in scope (REFERENCE §8.7, §5.2 `semantic`). */
@Injectable()
export class SemanticSearchService {
  constructor(
    private readonly settings: EmbeddingSettings,
    @Inject(VECTORS) private readonly vectors: Vectors,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /** The configuration and an embedder able to embed text, or a 501 naming what is missing. */
  async textEmbedder(org: string, what: string): Promise<{ cfg: EffectiveEmbeddingConfig; embedder: Embedder }> {
    const cfg = await this.settings.effective(org);
    const embedder = this.settings.embedder(cfg);
    if (!cfg || !embedder) throw this.settings.notConfigured(cfg, `${what} needs an embedding provider`);
    return { cfg, embedder };
  }

  /** Whether semantic ranking can run for the organization (hybrid skips its vector leg otherwise). */
  async canEmbedText(org: string): Promise<boolean> {
    return this.settings.embedder(await this.settings.effective(org)) !== null;
  }

  async embedQuery(embedder: Embedder, text: string): Promise<number[]> {
    try {
      return embedder.embedSync ? embedder.embedSync([text])[0] : (await embedder.embed([text]))[0];
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError(502, 'upstream_error', `the embedding provider failed: ${(err as Error).message}`);
    }
  }

  /** Raw hits for a query vector; the caller checked its length against the configuration. */
  async vectorHits(scope: ReadScope, vector: number[], o: VectorSearchOptions): Promise<VectorHit[]> {
    if (o.k <= 0) return [];
    const fetch = scope.restricted ? Math.min(Math.max(o.k * 4, o.k + 16), 10_000) : o.k;
    const hits = await this.vectors.search({
      org: scope.org,
      vector,
      k: fetch,
      node_types: o.node_types,
      exclude_node_types: o.exclude_node_types,
      layer: o.layer,
      threshold: o.threshold,
    });
    return (scope.restricted ? hits.filter((h) => scope.allows(h.uid)) : hits).slice(0, o.k);
  }

  async textHits(scope: ReadScope, text: string, o: VectorSearchOptions): Promise<VectorHit[]> {
    const { embedder } = await this.textEmbedder(scope.org, 'semantic search');
    return this.vectorHits(scope, await this.embedQuery(embedder, text), o);
  }

  /** Hits as `{node, score}`, live nodes only, ordered by score, salience, uid. */
  async toNodes(scope: ReadScope, hits: VectorHit[]): Promise<ScoredNode[]> {
    const score = new Map(hits.map((h) => [h.uid, h.score]));
    const nodes = await liveNodesInOrder(this.graph, scope, hits.map((h) => h.uid));
    return nodes.map((node) => ({ node, score: score.get(node.uid)! })).sort(compareScored);
  }
}
