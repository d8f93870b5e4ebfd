import { Injectable } from '@nestjs/common';
import { LegHit, LegRank, compareScored, fuseByRank, hybridLegSize, searchTypeFilter } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { SemanticSearchService } from '../embeddings/semantic-search.service';
import { ScoredNode, TextSearchService } from '../search/text-search.service';
import { ReadScope } from '@strata/platform/scope/read-scope';

export interface RankingQuery {
  query: string;
  /** OR-ed canonical type names; absent = all but Document and Chunk */
  node_types?: string[];
  layer?: string;
}

export interface FusedNode extends ScoredNode {
  legs: LegRank[];
}

/**
 * The search-like rankings of `/retrieve` (REFERENCE §5.2): text, semantic and hybrid. Each
 * returns results [offset, offset + limit) of its full order (§5.1: score, then salience,
 * then uid), so a smaller page is always a prefix of a larger one.
 */
@Injectable()
export class RankingService {
  constructor(
    private readonly text: TextSearchService,
    private readonly semantic: SemanticSearchService,
  ) {}

  /** Whether the vector leg can run (an embedder for the organization's configuration). */
  vectorAvailable(org: string): Promise<boolean> {
    return this.semantic.canEmbedText(org);
  }

  textRank(scope: ReadScope, q: RankingQuery, limit: number, minScore?: number, offset = 0): Promise<ScoredNode[]> {
    return this.text.search(scope, { ...q, limit, offset, min_score: minScore });
  }

  /** Needs a provider able to embed text: 501 `embedding_not_configured` otherwise. */
  async semanticRank(scope: ReadScope, q: RankingQuery, k: number, threshold?: number, offset = 0): Promise<ScoredNode[]> {
    const hits = await this.semantic.textHits(scope, q.query, { k, offset, ...searchTypeFilter(q.node_types), layer: q.layer, threshold });
    return this.semantic.toNodes(scope, hits);
  }

  /**
   * Reciprocal rank fusion (k = 60) of the `fts` and `vec` legs, each fetching
   * max(5·(offset + k), 50) candidates ranked as in `text` and `semantic` (ties by salience,
   * then uid); results [offset, offset + k) of the fused order. Without an embedding provider
   * only the `fts` leg runs (not an error).
   */
  async hybridRank(scope: ReadScope, q: RankingQuery, k: number, offset = 0): Promise<{ results: FusedNode[]; vector_leg: boolean }> {
    const size = hybridLegSize(offset + k);
    const nodes = new Map<string, NodeRecord>();
    const leg = (ranked: ScoredNode[]): LegHit[] =>
      ranked.map(({ node, score }) => {
        nodes.set(node.uid, node);
        return { uid: node.uid, score };
      });
    const legs = [{ leg: 'fts', hits: leg(await this.text.search(scope, { ...q, limit: size })) }];
    const vectorLeg = await this.semantic.canEmbedText(scope.org);
    if (vectorLeg) legs.push({ leg: 'vec', hits: leg(await this.semanticRank(scope, q, size)) });
    const results = fuseByRank(legs)
      .map((f) => ({ node: nodes.get(f.uid)!, score: f.score, legs: f.legs }))
      .sort(compareScored)
      .slice(offset, offset + k);
    return { results, vector_leg: vectorLeg };
  }
}
