import { Inject, Injectable } from '@nestjs/common';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { CLOCK, Clock } from '@strata/domain/time';
import {
  NodeQueue,
  compareActiveGoals,
  compareMergeCandidates,
  compareNewestFirst,
  compareOpenQuestions,
  comparePendingApprovals,
  isPendingDuplicate,
  isUnresolvedContradiction,
  queueFilter,
} from '@strata/domain/retrieval';
import { GRAPH_READ_MODEL, GraphReadModel, NodeFilter } from '@strata/graph-store/graph-read-model.port';
import { NodeReadViews } from '@strata/platform/read-views/node-read-views';
import { ReadScope } from '@strata/platform/scope/read-scope';

/** No queue is expected to be this long; it bounds one read. */
const ALL = { limit: 1_000_000, offset: 0 };

/**
 * The review queues of `/retrieve` (REFERENCE §5.2) and their GET shortcuts (§5.3): live
 * nodes or edges selected and ordered by the rules in `@strata/domain/retrieval`.
 */
@Injectable()
export class ReviewQueuesService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
    private readonly views: NodeReadViews,
  ) {}

  activeGoals(scope: ReadScope, limit: number): Promise<NodeRecord[]> {
    return this.sorted(scope, queueFilter('active_goals'), compareActiveGoals, limit);
  }

  openQuestions(scope: ReadScope, limit: number): Promise<NodeRecord[]> {
    return this.sorted(scope, queueFilter('open_questions'), compareOpenQuestions, limit);
  }

  /** Sorted and cut by the read model: the weak claims of a large graph never load whole. */
  async weakClaims(scope: ReadScope, threshold: number, limit: number): Promise<NodeRecord[]> {
    const f = this.scoped(scope, { node_types: ['Claim'], confidence_lt: threshold });
    return (await this.graph.listNodes(scope.org, f, { limit, offset: 0 }, 'confidence_asc')).items;
  }

  /** An approval whose `expires_at` has come is no longer pending, whether or not the sweep recorded it yet. */
  async pendingApprovals(scope: ReadScope, limit: number): Promise<NodeRecord[]> {
    return (await this.stillPending(scope)).sort(comparePendingApprovals).slice(0, limit);
  }

  /** `/decisions`: live Decisions with status open, revisited or unset, newest first. */
  async openDecisions(scope: ReadScope, limit: number): Promise<NodeRecord[]> {
    return (await this.graph.listNodes(scope.org, this.scoped(scope, queueFilter('open_decisions')), { limit, offset: 0 }, 'created_desc')).items;
  }

  async unresolvedContradictions(scope: ReadScope, limit: number) {
    const pairs = await this.liveEdgePairs(scope, 'Contradicts', isUnresolvedContradiction);
    pairs.sort((x, y) => compareNewestFirst(x.edge, y.edge));
    return pairs.slice(0, limit).map(({ edge, a, b }) => ({
      edge_uid: edge.uid,
      node_a_uid: a.uid,
      node_a_label: a.label,
      node_b_uid: b.uid,
      node_b_label: b.label,
      description: str(edge.props.description),
      contradiction_type: str(edge.props.contradiction_type),
      created_at: edge.created_at,
    }));
  }

  async mergeCandidates(scope: ReadScope, limit: number) {
    const pairs = await this.liveEdgePairs(scope, 'PossibleDuplicate', isPendingDuplicate);
    pairs.sort((x, y) => compareMergeCandidates(x.edge, y.edge));
    const truth = (n: NodeRecord) => (n.node_type === 'Claim' ? str(n.props.truth_status) : null);
    return pairs.slice(0, limit).map(({ edge, a, b }) => ({
      edge_uid: edge.uid,
      node_a_uid: a.uid,
      node_a_label: a.label,
      node_a_summary: a.summary,
      node_b_uid: b.uid,
      node_b_label: b.label,
      node_b_summary: b.summary,
      node_type: a.node_type,
      similarity: typeof edge.props.similarity === 'number' ? edge.props.similarity : null,
      method: str(edge.props.method),
      node_a_truth_status: truth(a),
      node_b_truth_status: truth(b),
    }));
  }

  async count(scope: ReadScope, queue: NodeQueue): Promise<number> {
    if (queue === 'pending_approvals') return (await this.stillPending(scope)).length;
    return this.graph.countNodes(scope.org, this.scoped(scope, queueFilter(queue)));
  }

  countWeakClaims(scope: ReadScope, threshold: number): Promise<number> {
    return this.graph.countNodes(scope.org, this.scoped(scope, { node_types: ['Claim'], confidence_lt: threshold }));
  }

  async countContradictions(scope: ReadScope): Promise<number> {
    return (await this.liveEdgePairs(scope, 'Contradicts', isUnresolvedContradiction)).length;
  }

  async countMergeCandidates(scope: ReadScope): Promise<number> {
    return (await this.liveEdgePairs(scope, 'PossibleDuplicate', isPendingDuplicate)).length;
  }

  // ---------- internals ----------

  private async stillPending(scope: ReadScope): Promise<NodeRecord[]> {
    const now = this.clock.now();
    const all = (await this.graph.listNodes(scope.org, this.scoped(scope, queueFilter('pending_approvals')), ALL)).items;
    return all.filter((n) => this.views.at(scope.org, n, now).props.status === 'pending');
  }

  private scoped(scope: ReadScope, f: NodeFilter): NodeFilter {
    return scope.nodeFilter(f);
  }

  private async sorted(scope: ReadScope, f: NodeFilter, cmp: (a: NodeRecord, b: NodeRecord) => number, limit: number): Promise<NodeRecord[]> {
    const all = (await this.graph.listNodes(scope.org, this.scoped(scope, f), ALL)).items;
    return all.sort(cmp).slice(0, limit);
  }

  /** Live edges of a type passing `keep`, with both endpoints live and visible. */
  private async liveEdgePairs(scope: ReadScope, type: string, keep: (e: EdgeRecord) => boolean) {
    const edges = (await this.graph.listEdges(scope.org, { edge_types: [type] })).filter(keep);
    const ends = await this.graph.getNodes(scope.org, [...new Set(edges.flatMap((e) => [e.from_uid, e.to_uid]))]);
    const out: { edge: EdgeRecord; a: NodeRecord; b: NodeRecord }[] = [];
    for (const edge of edges) {
      const a = ends.get(edge.from_uid);
      const b = ends.get(edge.to_uid);
      if (!a || !b || a.tombstone_at !== null || b.tombstone_at !== null || !scope.allows(a.uid) || !scope.allows(b.uid)) continue;
      out.push({ edge, a, b });
    }
    return out;
  }
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}
