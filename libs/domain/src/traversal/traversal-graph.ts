/** What a traversal reads: live adjacency and node heads, always within one organization. */
export type Direction = 'outgoing' | 'incoming' | 'both';
export type StepDirection = 'outgoing' | 'incoming';
export const DIRECTIONS: readonly Direction[] = ['outgoing', 'incoming', 'both'];

export interface AdjEdge {
  uid: string;
  from_uid: string;
  to_uid: string;
  edge_type: string;
  weight: number;
  confidence: number;
}

export interface TraversalNodeHead {
  uid: string;
  node_type: string;
  layer: string;
  tombstone_at: number | null;
}

/**
 * The graph as traversal sees it. Calls take a whole frontier at once so an adapter can
 * answer with one round trip per hop.
 */
export interface TraversalGraph {
  /** Live edges leaving (`outgoing`) or entering (`incoming`) each uid. */
  adjacency(uids: string[], direction: StepDirection): Promise<Map<string, AdjEdge[]>>;
  /** Heads of the nodes that exist (tombstoned included); unknown uids are absent. */
  heads(uids: string[]): Promise<Map<string, TraversalNodeHead>>;
}

/** Which edges a traversal may follow (REFERENCE §6.1). */
export interface EdgeFollowRules {
  /** canonical names; absent = every type */
  edge_types?: ReadonlySet<string>;
  /** canonical names, applied after `edge_types` */
  exclude_edge_types?: ReadonlySet<string>;
  /** edges with weight below this are not followed */
  weight_threshold?: number;
}

export function followsEdge(e: AdjEdge, rules: EdgeFollowRules): boolean {
  if (rules.edge_types && !rules.edge_types.has(e.edge_type)) return false;
  if (rules.exclude_edge_types && rules.exclude_edge_types.has(e.edge_type)) return false;
  if (rules.weight_threshold !== undefined && e.weight < rules.weight_threshold) return false;
  return true;
}

/** One followable hop from a node: the edge, the node on the other side, the direction used. */
export interface Hop {
  edge: AdjEdge;
  to: string;
  direction: StepDirection;
}

/**
 * The hops leaving each uid in the traversal's direction, filtered by the rules, in a stable
 * order (edge uid, then direction). Results are cached across calls within one traversal.
 */
export class HopReader {
  private readonly cache = new Map<string, Hop[]>();

  constructor(
    private readonly graph: TraversalGraph,
    private readonly direction: Direction,
    private readonly rules: EdgeFollowRules,
  ) {}

  async hopsOf(uids: string[]): Promise<Map<string, Hop[]>> {
    const missing = uids.filter((u) => !this.cache.has(u));
    if (missing.length) {
      const fresh = new Map<string, Hop[]>(missing.map((u) => [u, []]));
      if (this.direction !== 'incoming') {
        for (const [u, edges] of await this.graph.adjacency(missing, 'outgoing'))
          for (const e of edges) if (followsEdge(e, this.rules)) fresh.get(u)?.push({ edge: e, to: e.to_uid, direction: 'outgoing' });
      }
      if (this.direction !== 'outgoing') {
        for (const [u, edges] of await this.graph.adjacency(missing, 'incoming'))
          for (const e of edges) if (followsEdge(e, this.rules)) fresh.get(u)?.push({ edge: e, to: e.from_uid, direction: 'incoming' });
      }
      for (const [u, hops] of fresh) {
        hops.sort((a, b) => (a.edge.uid < b.edge.uid ? -1 : a.edge.uid > b.edge.uid ? 1 : a.direction < b.direction ? -1 : a.direction > b.direction ? 1 : 0));
        this.cache.set(u, hops);
      }
    }
    const out = new Map<string, Hop[]>();
    for (const u of uids) out.set(u, this.cache.get(u)!);
    return out;
  }
}

/**
 * Remembers which nodes are live so a traversal never passes through a tombstoned or
 * missing node. Heads are fetched once per node, in batches.
 */
export class LivenessCache {
  private readonly heads = new Map<string, TraversalNodeHead | null>();

  constructor(private readonly graph: TraversalGraph) {}

  async load(uids: Iterable<string>): Promise<void> {
    const missing = [...new Set(uids)].filter((u) => !this.heads.has(u));
    if (!missing.length) return;
    const got = await this.graph.heads(missing);
    for (const u of missing) {
      const h = got.get(u);
      this.heads.set(u, h && h.tombstone_at === null ? h : null);
    }
  }

  /** Only valid for uids passed to `load` before. */
  isLive(uid: string): boolean {
    return this.heads.get(uid) != null;
  }

  head(uid: string): TraversalNodeHead | null {
    return this.heads.get(uid) ?? null;
  }
}
