import { CognitiveView, EdgeQuery, NodeQuery, NodeQueryOrder, PointQuery } from '@strata/domain/cognitive';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { toEdgeFilter, toNodeFilter } from './view-filters';

/** A read action's view: the read model of one organization, no transaction. */
export class ReadModelView implements CognitiveView {
  constructor(
    private readonly graph: GraphReadModel,
    private readonly org: string,
  ) {}

  node(uid: string) {
    return this.graph.getNode(this.org, uid);
  }
  findNodes(q: NodeQuery, page: { limit: number; offset: number }, order: NodeQueryOrder = 'created_desc') {
    return this.graph.listNodes(this.org, toNodeFilter(q), page, order);
  }
  edges(q: EdgeQuery) {
    return this.graph.listEdges(this.org, toEdgeFilter(q));
  }
  seriesPoints(seriesUid: string, q: PointQuery) {
    return this.graph.seriesPoints(this.org, seriesUid, q);
  }
  seriesPointCount(seriesUid: string) {
    return this.graph.seriesPointCount(this.org, seriesUid);
  }
}
