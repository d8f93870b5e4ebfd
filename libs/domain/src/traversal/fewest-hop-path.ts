import { ReachedNode, betterPath, extendPath } from './cheapest-paths';
import { Direction, EdgeFollowRules, HopReader, LivenessCache, TraversalGraph } from './traversal-graph';

export interface FewestHopPathOptions {
  max_depth: number;
  direction: Direction;
  rules: EdgeFollowRules;
  /** nodes visited at which the search gives up (keeps a hub-heavy graph from exploding) */
  max_nodes: number;
}

export interface FewestHopPathResult {
  found: boolean;
  /** start → end, start first; empty when not found */
  path: ReachedNode[];
  truncated: boolean;
}

/**
 * The path with the fewest hops from start to end within `max_depth`; among those the
 * cheapest, then the one whose last parent uid is smaller (REFERENCE §6.1 `path`).
 * Breadth-first by layer: a node first seen in layer h keeps the best of its layer-h
 * parents, whose own paths are already fewest-hop-then-cheapest.
 */
export async function fewestHopPath(
  graph: TraversalGraph,
  start: string,
  end: string,
  opts: FewestHopPathOptions,
): Promise<FewestHopPathResult> {
  const origin: ReachedNode = { uid: start, cost: 0, confidence: 1, hops: 0, first_hop: 0, parent: null, edge_uid: null, edge_type: null, direction: null };
  if (start === end) return { found: true, path: [origin], truncated: false };
  const hops = new HopReader(graph, opts.direction, opts.rules);
  const live = new LivenessCache(graph);
  const seen = new Map<string, ReachedNode>([[start, origin]]);
  let frontier = [start];
  let truncated = false;

  for (let h = 1; h <= opts.max_depth && frontier.length; h++) {
    const adjacency = await hops.hopsOf(frontier);
    const targets: string[] = [];
    for (const list of adjacency.values()) for (const hop of list) if (!seen.has(hop.to)) targets.push(hop.to);
    await live.load(targets);
    const layer = new Map<string, ReachedNode>();
    for (const u of frontier) {
      const from = seen.get(u)!;
      for (const hop of adjacency.get(u)!) {
        if (seen.has(hop.to) || !live.isLive(hop.to)) continue;
        const cand = extendPath(from, u, hop, h);
        const cur = layer.get(hop.to);
        if (!cur || betterPath(cand, cur)) layer.set(hop.to, cand);
      }
    }
    for (const [uid, r] of layer) seen.set(uid, r);
    if (layer.has(end)) {
      const path: ReachedNode[] = [];
      for (let r: ReachedNode | undefined = layer.get(end); r; r = r.parent === null ? undefined : seen.get(r.parent)) path.push(r);
      return { found: true, path: path.reverse(), truncated: false };
    }
    if (seen.size - 1 >= opts.max_nodes) {
      truncated = true;
      break;
    }
    frontier = [...layer.keys()].sort();
  }
  return { found: false, path: [], truncated };
}
