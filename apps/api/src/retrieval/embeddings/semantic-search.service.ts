import { Inject, Injectable } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { fetchThroughTies } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { VectorHit, VectorQuery } from '@strata/vector-index/vector-index.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { RankedHead, ScoredNode, rankedHeadPage, withRecords } from '../search/ranked-nodes';
import { RankingReads } from '../shared/node-loader';
import { EffectiveEmbeddingConfig, EmbeddingSettings } from '@strata/platform/embeddings/embedding-settings.service';
import { Embedder } from '@strata/platform/embeddings/embedder-factory';
import { VECTORS, Vectors } from '@strata/platform/embeddings/vectors.port';

export interface VectorSearchOptions {
  k: number;
  /** results skipped in the full order (default 0) */
  offset?: number;
  node_types?: string[];
  exclude_node_types?: string[];
  layer?: string;
  threshold?: number;
}

/** A vector hit of a ranked page, with its (live, in-scope) node. */
export interface RankedVectorHit extends VectorHit {
  node: NodeRecord;
}

/**
 * A scoped search filters the index's answer, so it asks for more: this many times what it
 * needs, growing by the same factor, up to SCOPED_FETCH_MAX hits per query.
 */
const SCOPED_FETCH_FACTOR = 4;
const SCOPED_FETCH_MAX = 10_000;

/**
 * A query vector of zero length (a stop-words-only text under the lexical embedder) points
 * nowhere: under cosine and dot it scores every vector alike, so every node would tie and
 * none would be nearer than another. It has no neighbours. Euclidean distance still ranks.
 */
function hasDirection(vector: readonly number[]): boolean {
  for (const x of vector) if (x !== 0) return true;
  return false;
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

  /**
   * Results [offset, offset + k) of the order score, then salience, then uid, for a query
   * vector (the caller checked its length against the configuration): exactly that slice of
   * the full ranking whatever k is. Hits carry their nodes.
   */
  async vectorHits(scope: ReadScope, vector: number[], o: VectorSearchOptions): Promise<RankedVectorHit[]> {
    const reads = new RankingReads(this.graph, scope);
    const page = await withRecords(reads, await this.vectorHeads(scope, vector, o, reads));
    return page.map(({ node, score }) => ({ uid: node.uid, score, node }));
  }

  /** The same page as heads (the `vec` leg of hybrid: its records are read only for the fused page). */
  async vectorHeads(scope: ReadScope, vector: number[], o: VectorSearchOptions, reads: RankingReads): Promise<RankedHead[]> {
    if (o.k <= 0) return [];
    if (!hasDirection(vector) && (await this.settings.effective(scope.org))?.distance_metric !== 'euclidean') return [];
    const offset = o.offset ?? 0;
    const q = { org: scope.org, vector, node_types: o.node_types, exclude_node_types: o.exclude_node_types, layer: o.layer, threshold: o.threshold };
    const hits = await fetchThroughTies((n) => this.topInScope(scope, q, n), offset + o.k);
    return rankedHeadPage(reads, hits, offset, o.k);
  }

  async textHits(scope: ReadScope, text: string, o: VectorSearchOptions): Promise<RankedVectorHit[]> {
    const { embedder } = await this.textEmbedder(scope.org, 'semantic search');
    return this.vectorHits(scope, await this.embedQuery(embedder, text), o);
  }

  async textHeads(scope: ReadScope, text: string, o: VectorSearchOptions, reads: RankingReads): Promise<RankedHead[]> {
    const { embedder } = await this.textEmbedder(scope.org, 'semantic search');
    return this.vectorHeads(scope, await this.embedQuery(embedder, text), o, reads);
  }

  /** A ranked page as `{node, score}` (the order is already the §5.1 one). */
  toNodes(_scope: ReadScope, hits: RankedVectorHit[]): ScoredNode[] {
    return hits.map(({ node, score }) => ({ node, score }));
  }

  /**
   * The best `n` in-scope hits by score (fewer only when no more exist, or when a scoped
   * search reached SCOPED_FETCH_MAX hits without finding `n`).
   */
  private async topInScope(scope: ReadScope, q: Omit<VectorQuery, 'k'>, n: number): Promise<VectorHit[]> {
    if (!scope.restricted) return this.vectors.search({ ...q, k: n });
    const cap = Math.max(SCOPED_FETCH_MAX, n);
    let fetch = Math.min(n * SCOPED_FETCH_FACTOR, cap);
    for (;;) {
      const hits = await this.vectors.search({ ...q, k: fetch });
      const kept = hits.filter((h) => scope.allows(h.uid));
      if (kept.length >= n || hits.length < fetch || fetch >= cap) return kept.slice(0, n);
      fetch = Math.min(fetch * SCOPED_FETCH_FACTOR, cap);
    }
  }
}
