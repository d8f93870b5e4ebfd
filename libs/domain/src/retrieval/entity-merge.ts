import { ENTITY_NODE_TYPE_NAMES } from '../catalogue/node-types';
import { normaliseText } from '../catalogue/names';
import { Errors } from '../errors';
import { decideRetargetEdge, decideTombstoneEdge, decideTombstoneNode, WriteContext } from '../graph';
import { EdgeRecord, NodeRecord } from '../records';

/** The merged node's label becomes an alias of the kept node with this score (§8.5). */
export const MERGED_LABEL_ALIAS_SCORE = 0.8;

export interface MergeAlias {
  text: string;
  norm: string;
  score: number;
  created_at: number;
}

export interface MergeInput {
  keep: NodeRecord;
  merge: NodeRecord;
  /** live edges touching the merged node */
  mergeEdges: EdgeRecord[];
  /** live edges touching the kept node (duplicate detection) */
  keepEdges: EdgeRecord[];
  keepAliases: MergeAlias[];
  mergeAliases: MergeAlias[];
}

export interface AliasWrite {
  text: string;
  norm: string;
  score: number;
  created_at: number;
}

export interface MergePlan {
  /** versioned edge changes in order: retargets (reason `merge`), status updates, tombstones */
  edgeChanges: { edge: EdgeRecord; type: 'EdgeUpdated' | 'EdgeTombstoned'; reason: string }[];
  /** aliases set on the kept node */
  keepAliasSets: AliasWrite[];
  /** alias norms removed from the merged node */
  mergeAliasRemovals: string[];
  mergedNode: NodeRecord;
  counts: { edges_retargeted: number; edges_dropped: number; aliases_merged: number; alias_added: boolean };
}

/** Same type, or an Entity folded into one of the six specific reality types (§8.5). */
export function assertMergeableTypes(keep: NodeRecord, merge: NodeRecord): void {
  if (keep.node_type === merge.node_type) return;
  if (merge.node_type === 'Entity' && ENTITY_NODE_TYPE_NAMES.includes(keep.node_type) && keep.node_type !== 'Entity') return;
  throw Errors.wrongNodeType('merge_uid', merge.uid, merge.node_type, keep.node_type === 'Entity' ? ['Entity'] : [keep.node_type, ...(ENTITY_NODE_TYPE_NAMES.includes(keep.node_type) ? ['Entity'] : [])]);
}

const edgeKey = (from: string, to: string, type: string) => `${from}\u0000${to}\u0000${type}`;

/**
 * Decides an entity merge (REFERENCE §8.5): every live edge of the merged node moves to the
 * kept node, except self-loops and duplicates of live edges (tombstoned instead); a
 * PossibleDuplicate between the two is marked merged and tombstoned; aliases move (the
 * higher score wins on shared text); the merged label becomes an alias at 0.8 unless a
 * higher one exists; the merged node is tombstoned without cascade. `counted` says which edges
 * the counts include: a scoped caller's merge moves every edge, but counts only those it may see
 * (REFERENCE §1.8: a count must not reveal hidden edges).
 */
export function decideMerge(input: MergeInput, ctx: WriteContext, counted: (e: EdgeRecord) => boolean = () => true): MergePlan {
  const { keep, merge } = input;
  if (keep.uid === merge.uid) throw new Error('internal: merge of a node into itself');
  const mergedReason = `merged into ${keep.uid}`;
  const edgeChanges: MergePlan['edgeChanges'] = [];
  const live = new Set<string>();
  for (const e of input.keepEdges) if (e.tombstone_at === null) live.add(edgeKey(e.from_uid, e.to_uid, e.edge_type));
  let retargeted = 0;
  let dropped = 0;

  const ordered = [...input.mergeEdges].filter((e) => e.tombstone_at === null).sort((a, b) => a.created_at - b.created_at || (a.uid < b.uid ? -1 : 1));
  for (const e of ordered) {
    const between = (e.from_uid === keep.uid && e.to_uid === merge.uid) || (e.from_uid === merge.uid && e.to_uid === keep.uid);
    if (between && e.edge_type === 'PossibleDuplicate') {
      const marked: EdgeRecord = { ...e, props: { ...e.props, status: 'merged' }, updated_at: ctx.now, version: e.version + 1 };
      edgeChanges.push({ edge: marked, type: 'EdgeUpdated', reason: 'merge' });
      edgeChanges.push({ edge: decideTombstoneEdge(marked, mergedReason, ctx)!, type: 'EdgeTombstoned', reason: mergedReason });
      if (counted(e)) dropped++;
      continue;
    }
    const from = e.from_uid === merge.uid ? keep.uid : e.from_uid;
    const to = e.to_uid === merge.uid ? keep.uid : e.to_uid;
    const key = edgeKey(from, to, e.edge_type);
    if ((from === keep.uid && to === keep.uid) || live.has(key)) {
      edgeChanges.push({ edge: decideTombstoneEdge(e, mergedReason, ctx)!, type: 'EdgeTombstoned', reason: mergedReason });
      if (counted(e)) dropped++;
      continue;
    }
    live.add(key);
    edgeChanges.push({ edge: decideRetargetEdge(e, from, to, ctx), type: 'EdgeUpdated', reason: 'merge' });
    if (counted(e)) retargeted++;
  }

  const keepByNorm = new Map(input.keepAliases.map((a) => [a.norm, a]));
  const keepAliasSets: AliasWrite[] = [];
  const set = (a: AliasWrite) => {
    keepByNorm.set(a.norm, a);
    const i = keepAliasSets.findIndex((x) => x.norm === a.norm);
    if (i >= 0) keepAliasSets[i] = a;
    else keepAliasSets.push(a);
  };
  for (const a of input.mergeAliases) {
    const existing = keepByNorm.get(a.norm);
    if (!existing) set({ text: a.text, norm: a.norm, score: a.score, created_at: ctx.now });
    else if (a.score > existing.score) set({ ...existing, score: a.score });
  }
  let aliasAdded = false;
  const labelNorm = normaliseText(merge.label);
  if (labelNorm) {
    const existing = keepByNorm.get(labelNorm);
    if (!existing) {
      set({ text: merge.label, norm: labelNorm, score: MERGED_LABEL_ALIAS_SCORE, created_at: ctx.now });
      aliasAdded = true;
    } else if (existing.score < MERGED_LABEL_ALIAS_SCORE) {
      set({ ...existing, score: MERGED_LABEL_ALIAS_SCORE });
      aliasAdded = true;
    }
  }

  return {
    edgeChanges,
    keepAliasSets,
    mergeAliasRemovals: input.mergeAliases.map((a) => a.norm),
    mergedNode: decideTombstoneNode(merge, mergedReason, ctx)!,
    counts: { edges_retargeted: retargeted, edges_dropped: dropped, aliases_merged: input.mergeAliases.length, alias_added: aliasAdded },
  };
}
