import { Inject, Injectable } from '@nestjs/common';
import { LegHit, LegRank, compareRanked, fuseByRank, hybridLegSize, searchTypeFilter } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { SemanticSearchService } from '../embeddings/semantic-search.service';
import { RankedHead, withRecords } from '../search/ranked-nodes';
import { ScoredNode, TextSearchService } from '../search/text-search.service';
import { RankingReads } from '../shared/node-loader';
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
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
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
   * only the `fts` leg runs (not an error), and only its first offset + k are needed.
   * Candidates are ranked by their heads (salience, type); only the page's records are read.
   */
  async hybridRank(scope: ReadScope, q: RankingQuery, k: number, offset = 0): Promise<{ results: FusedNode[]; vector_leg: boolean }> {
    const vectorLeg = await this.semantic.canEmbedText(scope.org);
    // alone, the fts leg's fused score 1/(60 + rank) falls with its rank: the fused page is its own first offset + k
    const size = vectorLeg ? hybridLegSize(offset + k) : offset + k;
    const reads = new RankingReads(this.graph, scope);
    const heads = new Map<string, RankedHead>();
    const leg = (ranked: RankedHead[]): LegHit[] =>
      ranked.map((h) => {
        heads.set(h.uid, h);
        return { uid: h.uid, score: h.score };
      });
    const legs = [{ leg: 'fts', hits: leg(await this.text.rankedHeads(scope, { ...q, limit: size }, reads)) }];
    if (vectorLeg) legs.push({ leg: 'vec', hits: leg(await this.semantic.textHeads(scope, q.query, { k: size, ...searchTypeFilter(q.node_types), layer: q.layer }, reads)) });
    const page = fuseByRank(legs)
      .map((f) => ({ ...f, salience: heads.get(f.uid)!.salience }))
      .sort(compareRanked)
      .slice(offset, offset + k);
    const legsOf = new Map(page.map((f) => [f.uid, f.legs]));
    const results = (await withRecords(reads, page)).map((r) => ({ ...r, legs: legsOf.get(r.node.uid)! }));
    return { results, vector_leg: vectorLeg };
  }
}
