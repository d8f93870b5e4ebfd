import { compareCost, edgeConfidence, edgeCost } from './path-cost';
import { Direction, EdgeFollowRules, Hop, HopReader, LivenessCache, StepDirection, TraversalGraph } from './traversal-graph';

/** The selected path to one reached node (REFERENCE §6.1). */
export interface ReachedNode {
  uid: string;
  cost: number;
  confidence: number;
  /** hops of the selected path (may exceed the fewest-hop distance) */
  hops: number;
  /** fewest hops at which the node was reached at all */
  first_hop: number;
  parent: string | null;
  edge_uid: string | null;
  edge_type: string | null;
  direction: StepDirection | null;
}

export interface CheapestPathsOptions {
  max_depth: number;
  direction: Direction;
  rules: EdgeFollowRules;
  /** reached nodes (starts excluded) at which expansion stops */
  max_nodes: number;
}

export interface CheapestPathsResult {
  reached: Map<string, ReachedNode>;
  truncated: boolean;
}

/** Selected-path order: cost, then fewer hops, then the smaller parent uid. */
/** The path that reaches `hop.to` by extending the path to `parent` with one hop. */
export function extendPath(from: ReachedNode, parent: string, hop: Hop, hops: number): ReachedNode {
  return {
    uid: hop.to,
    cost: from.cost + edgeCost(hop.edge.weight),
    confidence: from.confidence * edgeConfidence(hop.edge.confidence),
    hops,
    first_hop: hops,
    parent,
    edge_uid: hop.edge.uid,
    edge_type: hop.edge.edge_type,
    direction: hop.direction,
  };
}

export function betterPath(a: ReachedNode, b: ReachedNode): boolean {
  const c = compareCost(a.cost, b.cost);
  if (c !== 0) return c < 0;
  if (a.hops !== b.hops) return a.hops < b.hops;
  return (a.parent ?? '') < (b.parent ?? '');
}

/**
 * For every node reachable from the starts within `max_depth` hops, the cheapest path
 * (cost Σ −ln w) with at most `max_depth` hops; ties go to fewer hops, then the smaller
 * parent uid. Hop-bounded Bellman–Ford: round h relaxes only from nodes whose path changed
 * in round h−1, reading the previous round's values, so a path found in round h has
 * exactly h hops and is the cheapest with at most h hops. Costs are never negative.
 *
 * Tombstoned and unknown nodes are never entered; the starts must be live (callers check).
 */
export async function cheapestPaths(graph: TraversalGraph, starts: string[], opts: CheapestPathsOptions): Promise<CheapestPathsResult> {
  const hops = new HopReader(graph, opts.direction, opts.rules);
  const live = new LivenessCache(graph);
  const startSet = new Set(starts);
  const reached = new Map<string, ReachedNode>();
  for (const s of startSet)
    reached.set(s, { uid: s, cost: 0, confidence: 1, hops: 0, first_hop: 0, parent: null, edge_uid: null, edge_type: null, direction: null });
  let newCount = 0;
  let truncated = false;
  let frontier = [...startSet].sort();

  for (let h = 1; h <= opts.max_depth && frontier.length && !truncated; h++) {
    const adjacency = await hops.hopsOf(frontier);
    const targets: string[] = [];
    for (const list of adjacency.values()) for (const hop of list) if (!startSet.has(hop.to)) targets.push(hop.to);
    await live.load(targets);

    const updates = new Map<string, ReachedNode>();
    for (const u of frontier) {
      const from = reached.get(u)!;
      for (const hop of adjacency.get(u) as Hop[]) {
        if (startSet.has(hop.to) || !live.isLive(hop.to)) continue;
        const cand = extendPath(from, u, hop, h);
        const current = updates.get(hop.to) ?? reached.get(hop.to);
        if (!current || betterPath(cand, current)) updates.set(hop.to, cand);
      }
    }

    // new nodes enter cheapest first, so a cap keeps the strongest ones
    const entering = [...updates.values()].filter((r) => !reached.has(r.uid));
    const room = opts.max_nodes - newCount;
    let admitted: Set<string> | null = null;
    if (entering.length > room) {
      truncated = true;
      entering.sort((a, b) => compareCost(a.cost, b.cost) || (a.uid < b.uid ? -1 : 1));
      admitted = new Set(entering.slice(0, Math.max(0, room)).map((r) => r.uid));
    }
    const next: string[] = [];
    for (const [uid, r] of updates) {
      const prev = reached.get(uid);
      if (!prev) {
        if (admitted && !admitted.has(uid)) continue;
        newCount++;
      } else r.first_hop = prev.first_hop;
      reached.set(uid, r);
      next.push(uid);
    }
    if (!truncated && newCount >= opts.max_nodes && h < opts.max_depth) {
      // the cap is reached: expansion stops here if anything else was still reachable
      truncated = next.length > 0 && (await hasUnreached(hops, live, next, reached, startSet));
      if (truncated) break;
    }
    frontier = next.sort();
  }
  return { reached, truncated };
}

async function hasUnreached(
  hops: HopReader,
  live: LivenessCache,
  frontier: string[],
  reached: Map<string, ReachedNode>,
  starts: Set<string>,
): Promise<boolean> {
  const adjacency = await hops.hopsOf(frontier);
  const targets: string[] = [];
  for (const list of adjacency.values()) for (const hop of list) if (!reached.has(hop.to) && !starts.has(hop.to)) targets.push(hop.to);
  await live.load(targets);
  return targets.some((t) => live.isLive(t));
}

/** Step order: depth ascending, then path cost, then node uid. */
export function compareSteps(a: ReachedNode, b: ReachedNode): number {
  if (a.hops !== b.hops) return a.hops - b.hops;
  const c = compareCost(a.cost, b.cost);
  if (c !== 0) return c;
  return a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0;
}
