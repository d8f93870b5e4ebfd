import { AdjEdge, StepDirection, TraversalGraph, TraversalNodeHead } from '@strata/domain/traversal';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import type { AdjacencyRow } from '@strata/graph-store/sqlite/sqlite-graph-store';
import { ReadScope } from '@strata/platform/scope/read-scope';
import { FastStore, fastStore } from '../shared/fast-store';

/** What a step shows of a node. */
export interface NodeLabel {
  label: string;
  node_type: string;
  layer: string;
}

// a whole frontier per statement (uids passed as one JSON array), same rows as adjacencySync;
// adjacency is answered from covering indexes (edges_out/edges_in), heads by primary key
export const ADJACENCY_SQL: Record<StepDirection, string> = {
  outgoing: `SELECT uid, from_uid, to_uid, edge_type, weight, confidence FROM edges
    WHERE org = ? AND from_uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`,
  incoming: `SELECT uid, from_uid, to_uid, edge_type, weight, confidence FROM edges
    WHERE org = ? AND to_uid IN (SELECT value FROM json_each(?)) AND tombstone_at IS NULL`,
};
export const HEADS_SQL = `SELECT uid, node_type, layer, tombstone_at, json_extract(doc, '$.label') AS label
  FROM nodes WHERE org = ? AND uid IN (SELECT value FROM json_each(?))`;

/**
 * Traversal over the graph read model of one organization. On the embedded SQLite adapter
 * it reads adjacency rows and node heads (with labels) from columns, never parsing node
 * documents; other adapters go through the port. Nodes outside the caller's scope look
 * missing, so a traversal never enters them.
 */
export class ReadModelTraversalGraph implements TraversalGraph {
  private readonly fast: FastStore | null;
  private readonly labels = new Map<string, NodeLabel>();

  constructor(
    private readonly graph: GraphReadModel,
    private readonly scope: ReadScope,
  ) {
    this.fast = fastStore(graph);
  }

  async adjacency(uids: string[], direction: StepDirection): Promise<Map<string, AdjEdge[]>> {
    const out = new Map<string, AdjEdge[]>();
    const org = this.scope.org;
    if (this.fast) {
      for (const u of uids) out.set(u, []);
      const key = direction === 'outgoing' ? 'from_uid' : 'to_uid';
      for (const row of this.fast.stmt(ADJACENCY_SQL[direction]).all(org, JSON.stringify(uids)) as AdjacencyRow[]) out.get(row[key])?.push(row);
      return out;
    }
    for (const u of uids) {
      const edges = await this.graph.listEdges(org, direction === 'outgoing' ? { from_uid: u } : { to_uid: u });
      out.set(
        u,
        edges.map((e) => ({ uid: e.uid, from_uid: e.from_uid, to_uid: e.to_uid, edge_type: e.edge_type, weight: e.weight, confidence: e.confidence })),
      );
    }
    return out;
  }

  async heads(uids: string[]): Promise<Map<string, TraversalNodeHead>> {
    const visible = this.scope.restricted ? uids.filter((u) => this.scope.allows(u)) : uids;
    const out = new Map<string, TraversalNodeHead>();
    if (!visible.length) return out;
    if (this.fast) {
      const rows = this.fast.stmt(HEADS_SQL).all(this.scope.org, JSON.stringify(visible)) as (TraversalNodeHead & { label: string })[];
      for (const r of rows) {
        out.set(r.uid, r);
        this.labels.set(r.uid, { label: r.label, node_type: r.node_type, layer: r.layer });
      }
      return out;
    }
    for (const [u, n] of await this.graph.getNodes(this.scope.org, visible)) {
      out.set(u, { uid: u, node_type: n.node_type, layer: n.layer, tombstone_at: n.tombstone_at });
      this.labels.set(u, { label: n.label, node_type: n.node_type, layer: n.layer });
    }
    return out;
  }

  /** Labels of nodes, from what the traversal already read where possible. */
  async describe(uids: string[]): Promise<Map<string, NodeLabel>> {
    const missing = uids.filter((u) => !this.labels.has(u));
    if (missing.length) await this.heads(missing);
    const out = new Map<string, NodeLabel>();
    for (const u of uids) {
      const l = this.labels.get(u);
      if (l) out.set(u, l);
    }
    return out;
  }
}
