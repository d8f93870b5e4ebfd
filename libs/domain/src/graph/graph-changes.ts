import { PendingEvent, pendingEvent, SeriesPoint, Streams } from '../events';
import { EdgeRecord, NodeRecord } from '../records';
import { NewNodeAlias } from './node-decider';

type NodeChangeType = 'NodeUpdated' | 'NodeTombstoned' | 'NodeRestored';
type EdgeChangeType = 'EdgeUpdated' | 'EdgeTombstoned' | 'EdgeRestored';

/**
 * The graph's events as a decider returns them, each on its object's stream. A versioned
 * change carries the whole record as of its new version; the transaction that stages it adds
 * what only the stored node can tell (whether the classification moved, REFERENCE §13.1).
 */
export const GraphChanges = {
  /** A new node (`reason` `import`: a snapshot's node, with the decay clock it had when the snapshot gave one). */
  nodeCreated(org: string, node: NodeRecord, reason: string | null = null, lastDecayedAt: number | null = null): PendingEvent {
    const data = lastDecayedAt === null ? { node, reason } : { node, reason, last_decayed_at: lastDecayedAt };
    return pendingEvent(Streams.node(org, node.uid), 'NodeCreated', data);
  },

  /** A new version of a node: an update, a tombstone or a restore. */
  nodeChanged(org: string, type: NodeChangeType, node: NodeRecord, reason: string | null): PendingEvent {
    return pendingEvent(Streams.node(org, node.uid), type, { node, reason });
  },

  /** Server-maintained fields (counters): not versioned, moves `updated_at` only when given. */
  nodeTouched(org: string, uid: string, props: Record<string, unknown>, updatedAt?: number): PendingEvent {
    return pendingEvent(Streams.node(org, uid), 'NodeTouched', updatedAt === undefined ? { uid, props } : { uid, props, updated_at: updatedAt });
  },

  edgeCreated(org: string, edge: EdgeRecord): PendingEvent {
    return pendingEvent(Streams.edge(org, edge.uid), 'EdgeCreated', { edge, reason: null });
  },

  /** A new version of an edge: an update, a tombstone or a restore. */
  edgeChanged(org: string, type: EdgeChangeType, edge: EdgeRecord, reason: string | null): PendingEvent {
    return pendingEvent(Streams.edge(org, edge.uid), type, { edge, reason });
  },

  /** An alias naming a node (§2.8 `canonical_name`), on the node's own stream. */
  aliasSet(org: string, alias: NewNodeAlias, now: number): PendingEvent {
    return pendingEvent(Streams.node(org, alias.canonical_uid), 'AliasSet', { ...alias, created_at: now });
  },

  seriesPointsAppended(org: string, seriesUid: string, points: SeriesPoint[]): PendingEvent {
    return pendingEvent(Streams.series(org, seriesUid), 'SeriesPointsAppended', { series_uid: seriesUid, points });
  },
};
