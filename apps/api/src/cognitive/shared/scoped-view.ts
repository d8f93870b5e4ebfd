import { CognitiveView, EdgeQuery, NodeQuery, NodeQueryOrder, PointQuery } from '@strata/domain/cognitive';
import { ReadScope } from '@strata/platform/scope/read-scope';

/**
 * A Space/Project-scoped caller's view (REFERENCE §1.8): nodes outside its grants do not exist.
 * A trigger uid naming one is therefore a 404 `not_found` in the usual §4.0 order, queries and
 * edge lists leave them out, and series outside the grants read as empty.
 */
export class ScopedView implements CognitiveView {
  constructor(
    private readonly inner: CognitiveView,
    private readonly scope: ReadScope,
  ) {}

  get unscoped(): CognitiveView {
    return this.inner;
  }

  async node(uid: string) {
    return this.scope.allows(uid) ? this.inner.node(uid) : null;
  }

  findNodes(q: NodeQuery, page: { limit: number; offset: number }, order?: NodeQueryOrder) {
    return this.inner.findNodes(this.scope.nodeFilter(q), page, order);
  }

  async edges(q: EdgeQuery) {
    return (await this.inner.edges(q)).filter((e) => this.scope.allows(e.from_uid) && this.scope.allows(e.to_uid));
  }

  async seriesPoints(seriesUid: string, q: PointQuery) {
    return this.scope.allows(seriesUid) ? this.inner.seriesPoints(seriesUid, q) : { items: [], has_more: false };
  }

  async seriesPointCount(seriesUid: string) {
    return this.scope.allows(seriesUid) ? this.inner.seriesPointCount(seriesUid) : 0;
  }
}
