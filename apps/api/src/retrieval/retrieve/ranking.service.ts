import { Inject, Injectable } from '@nestjs/common';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { FusedHit, LegRank, compareScored, fuseByRank, hybridLegSize, searchTypeFilter } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { SemanticSearchService } from '../embeddings/semantic-search.service';
import { ScoredNode, TextSearchService } from '../search/text-search.service';
import { liveNodesInOrder } from '../shared/node-loader';
import { ReadScope } from '../shared/read-scope';

export interface RankingQuery {
  query: string;
  /** OR-ed canonical type names; absent = all but Document and Chunk */
  node_types?: string[];
  layer?: string;
}

export interface FusedNode extends ScoredNode {
  legs: LegRank[];
}

/** The search-like rankings of `/retrieve` (REFERENCE §5.2): text, semantic and hybrid. */
@Injectable()
export class RankingService {
  constructor(
    private readonly text: TextSearchService,
    private readonly semantic: SemanticSearchService,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /** Whether the vector leg can run (an embedder for the organization's configuration). */
  vectorAvailable(org: string): Promise<boolean> {
    return this.semantic.canEmbedText(org);
  }

  textRank(scope: ReadScope, q: RankingQuery, limit: number, minScore?: number): Promise<ScoredNode[]> {
    return this.text.search(scope, { ...q, limit, min_score: minScore });
  }

  /** Needs a provider able to embed text: 501 `embedding_not_configured` otherwise. */
  async semanticRank(scope: ReadScope, q: RankingQuery, k: number, threshold?: number): Promise<ScoredNode[]> {
    const hits = await this.semantic.textHits(scope, q.query, { k, ...searchTypeFilter(q.node_types), layer: q.layer, threshold });
    return this.semantic.toNodes(scope, hits);
  }

  /**
   * Reciprocal rank fusion (k = 60) of the `fts` and `vec` legs, each fetching max(5k, 50)
   * candidates. Without an embedding provider only the `fts` leg runs (not an error).
   */
  async hybridRank(scope: ReadScope, q: RankingQuery, k: number): Promise<{ results: FusedNode[]; vector_leg: boolean }> {
    const size = hybridLegSize(k);
    const fts = await this.text.hits(scope, { ...q, limit: size });
    const vectorLeg = await this.semantic.canEmbedText(scope.org);
    const legs = [{ leg: 'fts', hits: fts }];
    if (vectorLeg) legs.push({ leg: 'vec', hits: await this.semantic.textHits(scope, q.query, { k: size, ...searchTypeFilter(q.node_types), layer: q.layer }) });
    const fused = fuseByRank(legs);
    return { results: await this.fusedNodes(scope, fused, k), vector_leg: vectorLeg };
  }

  private async fusedNodes(scope: ReadScope, fused: FusedHit[], k: number): Promise<FusedNode[]> {
    const byUid = new Map(fused.map((f) => [f.uid, f]));
    const nodes: NodeRecord[] = await liveNodesInOrder(this.graph, scope, fused.map((f) => f.uid));
    return nodes
      .map((node) => ({ node, score: byUid.get(node.uid)!.score, legs: byUid.get(node.uid)!.legs }))
      .sort(compareScored)
      .slice(0, k);
  }
}
