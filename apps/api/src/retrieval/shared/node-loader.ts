import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { fastStore } from './fast-store';

/** Live, in-scope nodes for ranked uids, in the given order (dropping anything else). */
export async function liveNodesInOrder(graph: GraphReadModel, scope: ReadScope, uids: string[]): Promise<NodeRecord[]> {
  if (!uids.length) return [];
  const found = await graph.getNodes(scope.org, uids);
  const out: NodeRecord[] = [];
  for (const u of uids) {
    const n = found.get(u);
    if (n && n.tombstone_at === null && scope.allows(u)) out.push(n);
  }
  return out;
}

/** What ordering a ranked candidate needs: the §5.1 tie-break and the type (for hidden types). */
export interface NodeHead {
  uid: string;
  node_type: string;
  salience: number;
}

// columns only: a ranking reads far more candidates than it returns, and parsing their documents cost more than ranking them
const HEADS_SQL = `SELECT uid, node_type, salience FROM nodes
  WHERE org = ? AND uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`;

/**
 * One request's node reads for a ranking: the heads of many candidates, then the records of
 * the few returned. On the embedded store heads come from columns; elsewhere from the records,
 * which are kept, so no node is read twice either way.
 */
export class RankingReads {
  private readonly records = new Map<string, NodeRecord>();
  /** null: gone or out of scope (the legs of one ranking share many candidates) */
  private readonly known = new Map<string, NodeHead | null>();

  constructor(
    private readonly graph: GraphReadModel,
    private readonly scope: ReadScope,
  ) {}

  /** Heads of the live, in-scope nodes among `uids`. */
  async heads(uids: readonly string[]): Promise<Map<string, NodeHead>> {
    const unknown = [...new Set(uids.filter((u) => !this.known.has(u)))];
    for (const u of unknown) if (!this.scope.allows(u)) this.known.set(u, null);
    const wanted = unknown.filter((u) => !this.known.has(u));
    if (wanted.length) {
      const fast = fastStore(this.graph);
      if (fast) for (const h of fast.stmt(HEADS_SQL).all(this.scope.org, JSON.stringify(wanted)) as NodeHead[]) this.known.set(h.uid, h);
      else
        for (const n of await liveNodesInOrder(this.graph, this.scope, wanted)) {
          this.records.set(n.uid, n);
          this.known.set(n.uid, { uid: n.uid, node_type: n.node_type, salience: n.salience });
        }
      for (const u of wanted) if (!this.known.has(u)) this.known.set(u, null);
    }
    const out = new Map<string, NodeHead>();
    for (const u of uids) {
      const h = this.known.get(u);
      if (h) out.set(u, h);
    }
    return out;
  }

  /** Live, in-scope records of `uids`, in that order. */
  async nodesInOrder(uids: readonly string[]): Promise<NodeRecord[]> {
    const unread = this.unread(uids);
    if (unread.length) for (const n of await liveNodesInOrder(this.graph, this.scope, unread)) this.records.set(n.uid, n);
    const out: NodeRecord[] = [];
    for (const u of uids) {
      const n = this.records.get(u);
      if (n) out.push(n);
    }
    return out;
  }

  private unread(uids: readonly string[]): string[] {
    return [...new Set(uids.filter((u) => !this.records.has(u)))];
  }
}
