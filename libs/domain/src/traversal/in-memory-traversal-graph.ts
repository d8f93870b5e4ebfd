import { AdjEdge, StepDirection, TraversalGraph, TraversalNodeHead } from './traversal-graph';

/** A traversal graph held in memory: for unit tests and small in-process uses. */
export class InMemoryTraversalGraph implements TraversalGraph {
  readonly nodes = new Map<string, TraversalNodeHead>();
  readonly edges: AdjEdge[] = [];
  /** adjacency calls made, to assert batching */
  calls = 0;

  node(uid: string, opts: { type?: string; tombstoned?: boolean } = {}): this {
    this.nodes.set(uid, { uid, node_type: opts.type ?? 'Claim', layer: 'epistemic', tombstone_at: opts.tombstoned ? 1 : null });
    return this;
  }

  edge(uid: string, from: string, to: string, weight = 0.5, opts: { type?: string; confidence?: number } = {}): this {
    for (const n of [from, to]) if (!this.nodes.has(n)) this.node(n);
    this.edges.push({ uid, from_uid: from, to_uid: to, edge_type: opts.type ?? 'Supports', weight, confidence: opts.confidence ?? 1 });
    return this;
  }

  async adjacency(uids: string[], direction: StepDirection): Promise<Map<string, AdjEdge[]>> {
    this.calls++;
    const out = new Map<string, AdjEdge[]>();
    for (const u of uids) out.set(u, this.edges.filter((e) => (direction === 'outgoing' ? e.from_uid : e.to_uid) === u));
    return out;
  }

  async heads(uids: string[]): Promise<Map<string, TraversalNodeHead>> {
    const out = new Map<string, TraversalNodeHead>();
    for (const u of uids) {
      const n = this.nodes.get(u);
      if (n) out.set(u, n);
    }
    return out;
  }
}
