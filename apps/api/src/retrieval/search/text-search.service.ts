import { Inject, Injectable } from '@nestjs/common';
import { SEARCH_HIDDEN_TYPES, ScoredUid, searchTypeFilter } from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { TEXT_INDEX, TextIndex } from '@strata/text-index/text-index.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { rankingTypeFilter } from '../shared/live-type';
import { RankingReads } from '../shared/node-loader';
import { RankedHead, ScoredNode, indexOrderHeads, indexOrderPage } from './ranked-nodes';

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

type TypeFilter = { node_types?: string[]; exclude_node_types?: string[] };

/** BM25 full-text ranking over live nodes in scope (REFERENCE §5.2 `text`). */
@Injectable()
export class TextSearchService {
  constructor(
    @Inject(TEXT_INDEX) private readonly text: TextIndex,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
  ) {}

  /**
   * Results [offset, offset + limit) of the order score, then salience, then uid: exactly
   * that slice of the full ranking whatever the page size. The index answers in that order
   * itself, so only offset + limit hits are read, however many tie on score.
   */
  async search(scope: ReadScope, q: TextSearchQuery): Promise<ScoredNode[]> {
    return this.ranked(scope, q, (hits) => indexOrderPage(this.graph, scope, hits), (r) => r.node.node_type);
  }

  /** The same page as heads (the `fts` leg of hybrid: its records are read only for the fused page). */
  rankedHeads(scope: ReadScope, q: TextSearchQuery, reads: RankingReads): Promise<RankedHead[]> {
    return this.ranked(scope, q, (hits) => indexOrderHeads(reads, hits), (r) => r.node_type);
  }

  private async ranked<R>(scope: ReadScope, q: TextSearchQuery, load: (hits: ScoredUid[]) => Promise<R[]>, typeOf: (r: R) => string): Promise<R[]> {
    if (!q.query.trim() || q.limit <= 0) return [];
    const types = await rankingTypeFilter(this.graph, scope.org, q.node_types);
    const page = await load(await this.hits(scope, q, types));
    if (q.node_types || !page.some((r) => isHidden(typeOf(r), types))) return page;
    // a node of a hidden type written since the probe: asked again with every hidden type excluded
    return load(await this.hits(scope, q, searchTypeFilter(undefined)));
  }

  /** The page's hits in the index's order: scope applied, records not yet read. */
  private async hits(scope: ReadScope, q: TextSearchQuery, types: TypeFilter): Promise<ScoredUid[]> {
    const offset = q.offset ?? 0;
    const uids = scope.uidList();
    if (uids && !uids.length) return [];
    const filter = { org: scope.org, query: q.query, ...types, layer: q.layer, min_score: q.min_score, uids };
    // spaced nodes the caller may not read are dropped here: fetch that many more, so a page stays full
    const extra = uids ? 0 : scope.hidden.size;
    const got = await this.text.search({ ...filter, limit: offset + q.limit + extra });
    const hits = extra ? got.filter((h) => scope.allows(h.uid)) : got;
    return hits.slice(offset, offset + q.limit);
  }
}

/** A hidden type the filter let through (it only excludes the types the organization holds). */
function isHidden(nodeType: string, types: TypeFilter): boolean {
  return SEARCH_HIDDEN_TYPES.includes(nodeType) && !types.exclude_node_types?.includes(nodeType);
}
