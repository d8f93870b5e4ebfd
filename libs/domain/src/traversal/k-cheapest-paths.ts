import { cheapestPaths } from './cheapest-paths';
import { compareCost, edgeConfidence, edgeCost } from './path-cost';
import { Direction, EdgeFollowRules, Hop, HopReader, LivenessCache, TraversalGraph } from './traversal-graph';

export interface KCheapestPathsOptions {
  k: number;
  max_hops: number;
  max_cost?: number;
  direction: Direction;
  rules: EdgeFollowRules;
  /** partial paths popped before giving up (the answer is then marked truncated) */
  max_expansions?: number;
  /** partial paths queued before giving up (each holds its node and edge lists) */
  max_queued?: number;
}

/**
 * The work one request may do. Simple paths multiply with every hop, and with equal edge
 * weights countless partial and complete paths tie. On a 5,000-node graph with 20,000 edges,
 * 25 paths between nodes 16 hops apart took over five minutes of the single thread before
 * every pop counted against the budget and only the best k found paths were kept; with these
 * budgets (and longer partial paths first among ties) it takes 0.5 s of CPU and answers 25
 * paths marked `truncated` (the search stopped before proving them the cheapest). Measured
 * with the audit's repro (/tmp/audit3/repro-K/topk.js).
 */
const DEFAULT_MAX_EXPANSIONS = 100_000;
const DEFAULT_MAX_QUEUED = 500_000;

export interface FoundPath {
  node_uids: string[];
  edge_uids: string[];
  edge_types: string[];
  hops: number;
  cost: number;
  confidence: number;
}

export interface KCheapestPathsResult {
  paths: FoundPath[];
  truncated: boolean;
}

interface Partial {
  nodes: string[];
  edges: Hop[];
  cost: number;
  confidence: number;
  /** cost + lower bound of the rest */
  f: number;
}

function reverse(d: Direction): Direction {
  return d === 'outgoing' ? 'incoming' : d === 'incoming' ? 'outgoing' : 'both';
}

/** Lexicographic path order used for equal costs: fewer hops, then node uids, then edge uids. */
export function comparePaths(a: FoundPath, b: FoundPath): number {
  const c = compareCost(a.cost, b.cost);
  if (c !== 0) return c;
  if (a.hops !== b.hops) return a.hops - b.hops;
  const ka = a.node_uids.join('\u0000') + '\u0001' + a.edge_uids.join('\u0000');
  const kb = b.node_uids.join('\u0000') + '\u0001' + b.edge_uids.join('\u0000');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * The k cheapest simple paths (no node repeated) from start to end with at most `max_hops`
 * edges, cost ascending (REFERENCE §6.1 `top_k_paths`). A* over partial paths: the bound
 * for the rest of a path is the cheapest cost from its last node to the end within the hop
 * budget (a reverse hop-bounded search from the end), which also prunes nodes that cannot
 * reach the end in the hops left. Paths leave the queue in cost order.
 */
export async function kCheapestPaths(
  graph: TraversalGraph,
  start: string,
  end: string,
  opts: KCheapestPathsOptions,
): Promise<KCheapestPathsResult> {
  if (start === end) return { paths: [{ node_uids: [start], edge_uids: [], edge_types: [], hops: 0, cost: 0, confidence: 1 }], truncated: false };
  const toEnd = await cheapestPaths(graph, [end], {
    max_depth: opts.max_hops,
    direction: reverse(opts.direction),
    rules: opts.rules,
    max_nodes: 100_000,
  });
  const bound = (uid: string) => toEnd.reached.get(uid);
  if (!bound(start)) return { paths: [], truncated: toEnd.truncated };

  const hops = new HopReader(graph, opts.direction, opts.rules);
  const live = new LivenessCache(graph);
  const maxExpansions = opts.max_expansions ?? DEFAULT_MAX_EXPANSIONS;
  const maxQueued = opts.max_queued ?? DEFAULT_MAX_QUEUED;
  // many partial paths end at the same node: read each node's hops once per request
  const adjacencyOf = new Map<string, Hop[]>();
  let queued = 1;
  // among equal estimates the longer partial path first: it is nearer the end, so complete
  // paths surface early (shorter first made equal-weight graphs a breadth-first search that
  // spent the whole budget before finding any path)
  const heap = new MinHeap<Partial>((a, b) => compareCost(a.f, b.f) || b.nodes.length - a.nodes.length);
  const startBound = bound(start)!;
  heap.push({ nodes: [start], edges: [], cost: 0, confidence: 1, f: startBound.cost });
  const found: FoundPath[] = [];
  let expansions = 0;
  let truncated = false;

  while (heap.size) {
    const p = heap.pop()!;
    if (found.length >= opts.k && compareCost(p.f, found[opts.k - 1].cost) > 0) break;
    // every pop counts: with equal edge weights countless complete paths tie, and each is popped
    const overBudget = ++expansions > maxExpansions;
    const last = p.nodes[p.nodes.length - 1];
    if (last === end) {
      // only the best k are kept (sorting every tied path found cost minutes)
      keepBest(found, opts.k, {
        node_uids: p.nodes,
        edge_uids: p.edges.map((e) => e.edge.uid),
        edge_types: p.edges.map((e) => e.edge.edge_type),
        hops: p.edges.length,
        cost: p.cost,
        confidence: p.confidence,
      });
    }
    if (overBudget) {
      truncated = true;
      break;
    }
    if (last === end) continue;
    const used = p.edges.length;
    let adjacency = adjacencyOf.get(last);
    if (!adjacency) {
      adjacency = (await hops.hopsOf([last])).get(last)!;
      await live.load(adjacency.map((h) => h.to));
      adjacencyOf.set(last, adjacency);
    }
    for (const hop of adjacency) {
      const b = bound(hop.to);
      if (!b || used + 1 + b.first_hop > opts.max_hops) continue;
      if (!live.isLive(hop.to) || p.nodes.includes(hop.to)) continue;
      const cost = p.cost + edgeCost(hop.edge.weight);
      if (opts.max_cost !== undefined && compareCost(cost + b.cost, opts.max_cost) > 0) continue;
      if (++queued > maxQueued) {
        truncated = true;
        break;
      }
      heap.push({
        nodes: [...p.nodes, hop.to],
        edges: [...p.edges, hop],
        cost,
        confidence: p.confidence * edgeConfidence(hop.edge.confidence),
        f: cost + b.cost,
      });
    }
    if (truncated) break;
  }
  return { paths: found.slice(0, opts.k), truncated };
}

/** Inserts `path` into `best` (sorted by comparePaths) and keeps at most `k`. */
function keepBest(best: FoundPath[], k: number, path: FoundPath): void {
  if (best.length >= k && comparePaths(path, best[k - 1]) >= 0) return;
  let lo = 0;
  let hi = best.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (comparePaths(best[mid], path) <= 0) lo = mid + 1;
    else hi = mid;
  }
  best.splice(lo, 0, path);
  if (best.length > k) best.length = k;
}

/** A small binary heap (the standard library has none). */
export class MinHeap<T> {
  private readonly items: T[] = [];
  constructor(private readonly less: (a: T, b: T) => number) {}
  get size(): number {
    return this.items.length;
  }
  push(v: T): void {
    const a = this.items;
    a.push(v);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (this.less(a[i], a[p]) >= 0) break;
      [a[i], a[p]] = [a[p], a[i]];
      i = p;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    if (!a.length) return undefined;
    const top = a[0];
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.less(a[l], a[m]) < 0) m = l;
        if (r < a.length && this.less(a[r], a[m]) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m], a[i]];
        i = m;
      }
    }
    return top;
  }
}
