import { CognitiveView, EdgeQuery, NodeQuery, NodeQueryOrder, PointQuery } from '@strata/domain/cognitive';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { toEdgeFilter, toNodeFilter } from './view-filters';

/** A write's view: the request's transaction, its own staged changes included. */
export class TxView implements CognitiveView {
  constructor(private readonly tx: GraphTx) {}

  node(uid: string) {
    return this.tx.node(uid);
  }
  findNodes(q: NodeQuery, page: { limit: number; offset: number }, order: NodeQueryOrder = 'created_desc') {
    return this.tx.reader.listNodes(this.tx.org, toNodeFilter(q), page, order);
  }
  edges(q: EdgeQuery) {
    return this.tx.edges(toEdgeFilter(q));
  }
  seriesPoints(seriesUid: string, q: PointQuery) {
    return this.tx.reader.seriesPoints(this.tx.org, seriesUid, q);
  }
  seriesPointCount(seriesUid: string) {
    return this.tx.reader.seriesPointCount(this.tx.org, seriesUid);
  }
}
