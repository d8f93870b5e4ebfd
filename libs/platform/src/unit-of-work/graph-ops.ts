import { Errors } from '@strata/domain/errors';
import {
  CreateNodeOptions,
  decideCreateEdge,
  decideCreateNode,
  decideNodeAliases,
  decideRestoreEdge,
  decideRestoreNode,
  decideTombstoneEdge,
  decideTombstoneNode,
  decideUpdateNode,
  GraphChanges,
  triggerEdgeProps,
  UpdateNodeOptions,
} from '@strata/domain/graph';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { Body } from '@strata/domain/validation';
import { GraphTx } from './graph-tx';

/**
 * Graph operations shared by every route that writes (generic, cognitive, evolve, merge,
 * batch), each in the template's shape: read what the rule needs through the transaction,
 * decide with the graph's pure deciders, stage the typed events they return with `tx.emit`.
 */

/** Creates a node, with the aliases its props name for it (§2.8 `canonical_name`). */
/** `write`: the request's write context unless a caller narrows it (a Space's default classification). */
export function createNode(tx: GraphTx, body: Body, opts: CreateNodeOptions = {}, write = tx.write): NodeRecord {
  const texts: string[] = [];
  const decided = decideCreateNode(body, tx.uuid(), write, { ...opts, nodeAliases: texts });
  const aliases = decideNodeAliases(decided, texts, opts.prefix ? `${opts.prefix}.props.canonical_name` : 'props.canonical_name');
  tx.emit([GraphChanges.nodeCreated(tx.org, decided), ...aliases.map((a) => GraphChanges.aliasSet(tx.org, a, tx.now))]);
  return decided;
}

/**
 * Updates a node (PATCH /node, /evolve update), registering the aliases its props name for it
 * (§2.8 `canonical_name`) in the same transaction.
 */
export function updateNode(tx: GraphTx, current: NodeRecord, body: Body, reason: string | null, opts: UpdateNodeOptions = {}): NodeRecord {
  const texts: string[] = [];
  const decided = decideUpdateNode(current, body, tx.write, { ...opts, nodeAliases: texts });
  const aliases = decideNodeAliases(decided, texts, `${opts.propsField ?? 'props'}.canonical_name`);
  tx.emit([GraphChanges.nodeChanged(tx.org, 'NodeUpdated', decided, reason), ...aliases.map((a) => GraphChanges.aliasSet(tx.org, a, tx.now))]);
  return decided;
}

/** An edge created by a cognitive trigger: weight 0.5, confidence 1.0, default props. */
export function createTriggerEdge(
  tx: GraphTx,
  from: NodeRecord,
  to: NodeRecord,
  edgeType: string,
  namedProps: Record<string, unknown> = {},
): EdgeRecord {
  const edge = decideCreateEdge({ edge_type: edgeType, props: triggerEdgeProps(edgeType, namedProps) }, from, to, tx.uuid(), tx.write);
  tx.emit(GraphChanges.edgeCreated(tx.org, edge));
  return edge;
}

export function createEdge(
  tx: GraphTx,
  input: { edge_type: string; weight?: number; confidence?: number; props?: Record<string, unknown> },
  from: NodeRecord,
  to: NodeRecord,
): EdgeRecord {
  const edge = decideCreateEdge(input, from, to, tx.uuid(), tx.write);
  tx.emit(GraphChanges.edgeCreated(tx.org, edge));
  return edge;
}

export interface TombstoneResult {
  node: NodeRecord;
  /** false when the node was already tombstoned (no-op) */
  changed: boolean;
  edges_tombstoned: number;
}

/**
 * Tombstones a node; with `cascade`, every live edge touching it too, with reason
 * `cascade:<uid>` so a restore can bring exactly those back. `counted` limits the count to
 * the edges a scoped caller may see: the cascade keeps the graph whole (no live edge to a
 * tombstoned node) and the count does not reveal the others (REFERENCE §1.8).
 */
export async function tombstoneNode(
  tx: GraphTx,
  uid: string,
  opts: { reason: string | null; cascade: boolean; by?: string; counted?: (e: EdgeRecord) => boolean },
): Promise<TombstoneResult> {
  const current = await tx.node(uid);
  if (!current) throw Errors.notFound(`node ${uid} not found`, { uid });
  const next = decideTombstoneNode(current, opts.reason, tx.write, opts.by);
  if (!next) return { node: current, changed: false, edges_tombstoned: 0 };
  tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeTombstoned', next, opts.reason));
  let n = 0;
  if (opts.cascade) {
    for (const e of await tx.edges({ touching: uid })) {
      const t = decideTombstoneEdge(e, `cascade:${uid}`, tx.write);
      if (t) {
        tx.emit(GraphChanges.edgeChanged(tx.org, 'EdgeTombstoned', t, `cascade:${uid}`));
        if (!opts.counted || opts.counted(e)) n++;
      }
    }
  }
  return { node: next, changed: true, edges_tombstoned: n };
}

export async function restoreNode(
  tx: GraphTx,
  uid: string,
  reason: string | null,
  counted: (e: EdgeRecord) => boolean = () => true,
): Promise<{ node: NodeRecord; changed: boolean; edges_restored: number }> {
  const current = await tx.node(uid);
  if (!current) throw Errors.notFound(`node ${uid} not found`, { uid });
  const next = decideRestoreNode(current, tx.write);
  if (!next) return { node: current, changed: false, edges_restored: 0 };
  tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeRestored', next, reason));
  let n = 0;
  for (const e of await tx.edges({ touching: uid, include_tombstoned: true, tombstone_reason: `cascade:${uid}` })) {
    const other = e.from_uid === uid ? e.to_uid : e.from_uid;
    const o = other === uid ? next : await tx.node(other);
    if (!o || o.tombstone_at !== null) continue;
    const r = decideRestoreEdge(e, tx.write);
    if (r) {
      tx.emit(GraphChanges.edgeChanged(tx.org, 'EdgeRestored', r, reason));
      if (counted(e)) n++;
    }
  }
  return { node: next, changed: true, edges_restored: n };
}

export async function tombstoneEdge(tx: GraphTx, uid: string, reason: string | null): Promise<{ edge: EdgeRecord; changed: boolean }> {
  const current = await tx.edge(uid);
  if (!current) throw Errors.notFound(`edge ${uid} not found`, { uid });
  const next = decideTombstoneEdge(current, reason, tx.write);
  if (!next) return { edge: current, changed: false };
  tx.emit(GraphChanges.edgeChanged(tx.org, 'EdgeTombstoned', next, reason));
  return { edge: next, changed: true };
}

export async function restoreEdge(tx: GraphTx, uid: string, reason: string | null): Promise<{ edge: EdgeRecord; changed: boolean }> {
  const current = await tx.edge(uid);
  if (!current) throw Errors.notFound(`edge ${uid} not found`, { uid });
  if (current.tombstone_at === null) return { edge: current, changed: false };
  for (const end of [current.from_uid, current.to_uid]) {
    const n = await tx.node(end);
    if (!n || n.tombstone_at !== null) throw Errors.tombstoned('node', end);
  }
  const next = decideRestoreEdge(current, tx.write)!;
  tx.emit(GraphChanges.edgeChanged(tx.org, 'EdgeRestored', next, reason));
  return { edge: next, changed: true };
}
