import { Inject, Injectable } from '@nestjs/common';
import { compareScored, searchTypeFilter } from '@strata/domain/retrieval';
import { NodeRecord } from '@strata/domain/records';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { TEXT_INDEX, TextHit, TextIndex } from '@strata/text-index/text-index.port';
import { liveNodesInOrder } from '../shared/node-loader';
import { ReadScope } from '../shared/read-scope';

export interface ScoredNode {
  node: NodeRecord;
  score: number;
}

export interface TextSearchQuery {
  query: string;
  /** OR-ed canonical type names; absent = all but Document and Chunk */
  node_types?: string[];
  layer?: string;
  limit: number;
  min_score?: number;
}

/** BM25 full-text ranking over live nodes in scope (REFERENCE §5.2 `text`). */
@Injectable()
export class TextSearchService {
  constructor(
    @Inject(TEXT_INDEX) private readonly text: TextIndex,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /** Raw hits (uid + BM25), best first: the `fts` leg of hybrid ranking. */
  async hits(scope: ReadScope, q: TextSearchQuery): Promise<TextHit[]> {
    if (!q.query.trim() || q.limit <= 0) return [];
    const uids = scope.uidList();
    if (uids && !uids.length) return [];
    return this.text.search({
      org: scope.org,
      query: q.query,
      ...searchTypeFilter(q.node_types),
      layer: q.layer,
      limit: q.limit,
      min_score: q.min_score,
      uids,
    });
  }

  /** Ranked nodes: score, then salience, then uid. */
  async search(scope: ReadScope, q: TextSearchQuery): Promise<ScoredNode[]> {
    const hits = await this.hits(scope, q);
    const score = new Map(hits.map((h) => [h.uid, h.score]));
    const nodes = await liveNodesInOrder(this.graph, scope, hits.map((h) => h.uid));
    return nodes.map((node) => ({ node, score: score.get(node.uid)! })).sort(compareScored);
  }
}
