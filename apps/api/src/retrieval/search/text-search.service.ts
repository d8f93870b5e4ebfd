import { Inject, Injectable } from '@nestjs/common';
import { searchTypeFilter } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { TEXT_INDEX, TextIndex } from '@strata/text-index/text-index.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { ScoredNode, indexOrderPage } from './ranked-nodes';

export type { ScoredNode } from './ranked-nodes';

export interface TextSearchQuery {
  query: string;
  /** OR-ed canonical type names; absent = all but Document and Chunk */
  node_types?: string[];
  layer?: string;
  limit: number;
  /** results skipped in the full order (default 0) */
  offset?: number;
  min_score?: number;
}

/** BM25 full-text ranking over live nodes in scope (REFERENCE §5.2 `text`). */
@Injectable()
export class TextSearchService {
  constructor(
    @Inject(TEXT_INDEX) private readonly text: TextIndex,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /**
   * Results [offset, offset + limit) of the order score, then salience, then uid: exactly
   * that slice of the full ranking whatever the page size (also the `fts` leg of hybrid). The
   * index answers in that order itself, so only offset + limit hits are read, however many
   * tie on score.
   */
  async search(scope: ReadScope, q: TextSearchQuery): Promise<ScoredNode[]> {
    const offset = q.offset ?? 0;
    if (!q.query.trim() || q.limit <= 0) return [];
    const uids = scope.uidList();
    if (uids && !uids.length) return [];
    const filter = { org: scope.org, query: q.query, ...searchTypeFilter(q.node_types), layer: q.layer, min_score: q.min_score, uids };
    // spaced nodes the caller may not read are dropped here: fetch that many more, so a page stays full
    const extra = uids ? 0 : scope.hidden.size;
    const got = await this.text.search({ ...filter, limit: offset + q.limit + extra });
    const hits = extra ? got.filter((h) => scope.allows(h.uid)) : got;
    return indexOrderPage(this.graph, scope, hits.slice(offset, offset + q.limit));
  }
}
