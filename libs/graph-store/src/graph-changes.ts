import {
  AliasSetData,
  EmbeddingConfiguredData,
  EdgeVersionedEvent,
  EmbeddingSetData,
  GraphPurgedData,
  NodeTouchedData,
  NodeVersionedData,
  NodeVersionedEvent,
  RecordedEvent,
  SalienceDecayedData,
  SeriesPointsAppendedData,
  isGraphEvent,
  unhandled,
} from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { rawDataOf, versionedRecordJson } from '@strata/event-store/sqlite/raw-event-data';

/**
 * What one event changes in the graph read model, said once for both storage modes: the
 * SQLite writer and the MongoDB document writes each execute these changes, neither looks at
 * events. A new graph event is handled here and nowhere else (the switch is exhaustive); a new
 * kind of change is the only thing each storage has to learn.
 */
export type GraphModelChange =
  /** a node version (created, updated, tombstoned, restored): the whole record replaces the row */
  | { kind: 'putNode'; org: string; node: NodeRecord; rev: number; created: boolean; lastDecayedAt: number | null; json: () => string }
  /** maintained counters and salience merged into the stored record, without a new version */
  | { kind: 'touchNode'; org: string; data: NodeTouchedData; rev: number }
  | { kind: 'decaySalience'; org: string; data: SalienceDecayedData }
  | { kind: 'putEdge'; org: string; edge: EdgeRecord; rev: number; created: boolean; json: () => string }
  | { kind: 'setAlias'; org: string; alias: AliasSetData }
  | { kind: 'removeAlias'; org: string; norm: string; canonical_uid: string }
  /** an event on a node's stream that is not a node version: the stored revision follows it */
  | { kind: 'followNodeStream'; org: string; uid: string; rev: number }
  | { kind: 'configureEmbeddings'; org: string; config: EmbeddingConfiguredData }
  | { kind: 'setEmbedding'; org: string; data: EmbeddingSetData }
  | { kind: 'deleteEmbedding'; org: string; uid: string }
  | { kind: 'appendSeriesPoints'; org: string; data: SeriesPointsAppendedData }
  /** nodes leave with their aliases, vector and series points; edges leave */
  | { kind: 'purge'; org: string; data: GraphPurgedData }
  /** everything of the organization but its embedding configuration */
  | { kind: 'clear'; org: string }
  /**
   * the organization's Space membership (InSpace edges, Space nodes, classifications) may have
   * changed at log position `pos`: readers that keep the membership in memory read again
   */
  | { kind: 'markMembership'; org: string; pos: number };

export type GraphModelChangeKind = GraphModelChange['kind'];

const NONE: GraphModelChange[] = [];

/** The changes one event makes; none for events that are not graph events. */
export function graphChangesOf(e: RecordedEvent): GraphModelChange[] {
  if (!isGraphEvent(e)) return NONE;
  const org = e.metadata.org_id;
  switch (e.type) {
    case 'NodeCreated':
    case 'NodeUpdated':
    case 'NodeTombstoned':
    case 'NodeRestored': {
      const v = e;
      const put: GraphModelChange = { kind: 'putNode', org, node: v.data.node, rev: v.revision, created: v.type === 'NodeCreated', lastDecayedAt: decayClockOf(v.data), json: () => recordJson(v, 'node') };
      return v.data.node.node_type === 'Space' || v.data.classification_changed ? [put, markMembership(e)] : [put];
    }
    case 'NodeTouched':
      return [{ kind: 'touchNode', org, data: e.data, rev: e.revision }];
    case 'EdgeCreated':
    case 'EdgeUpdated':
    case 'EdgeTombstoned':
    case 'EdgeRestored': {
      const v = e;
      const put: GraphModelChange = { kind: 'putEdge', org, edge: v.data.edge, rev: v.revision, created: v.type === 'EdgeCreated', json: () => recordJson(v, 'edge') };
      return v.data.edge.edge_type === 'InSpace' ? [put, markMembership(e)] : [put];
    }
    case 'SalienceDecayed':
      return [{ kind: 'decaySalience', org, data: e.data }];
    case 'AliasSet':
      return withNodeStream(e, org, e.data.canonical_uid, { kind: 'setAlias', org, alias: e.data });
    case 'AliasRemoved':
      return withNodeStream(e, org, e.data.canonical_uid, { kind: 'removeAlias', org, norm: e.data.norm, canonical_uid: e.data.canonical_uid });
    case 'EmbeddingConfigured':
      return [{ kind: 'configureEmbeddings', org, config: e.data }];
    case 'EmbeddingSet':
      return [{ kind: 'setEmbedding', org, data: e.data }];
    case 'EmbeddingDeleted':
      return [{ kind: 'deleteEmbedding', org, uid: e.data.uid }];
    case 'SeriesPointsAppended':
      return [{ kind: 'appendSeriesPoints', org, data: e.data }];
    case 'GraphPurged':
      return e.data.node_uids.length || e.data.edge_uids.length ? [{ kind: 'purge', org, data: e.data }, markMembership(e)] : [{ kind: 'purge', org, data: e.data }];
    case 'GraphCleared':
      return [{ kind: 'clear', org }, markMembership(e)];
    default:
      unhandled(e);
      return NONE;
  }
}

function markMembership(e: RecordedEvent): GraphModelChange {
  return { kind: 'markMembership', org: e.metadata.org_id, pos: e.position };
}

/**
 * Alias events live on their node's stream: the node's stored revision must follow them, or
 * the next versioned write to the node would expect a stale revision.
 */
function withNodeStream(e: RecordedEvent, org: string, uid: string, change: GraphModelChange): GraphModelChange[] {
  return e.stream === `node-${org}:${uid}` ? [change, { kind: 'followNodeStream', org, uid, rev: e.revision }] : [change];
}

/** The decay clock a versioned node event sets (an import's NodeCreated), else null. */
export function decayClockOf(data: NodeVersionedData): number | null {
  return typeof data.last_decayed_at === 'number' ? data.last_decayed_at : null;
}

/** The record's JSON: sliced from the stored event text when it rides along, else serialised. */
export function recordJson(e: RecordedEvent<NodeVersionedEvent | EdgeVersionedEvent>, key: 'node' | 'edge'): string {
  const raw = rawDataOf(e);
  const sliced = raw === undefined ? undefined : versionedRecordJson(raw, e.data, key);
  return sliced ?? JSON.stringify('node' in e.data ? e.data.node : e.data.edge);
}
