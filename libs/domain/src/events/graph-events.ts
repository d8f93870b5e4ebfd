import { EdgeRecord, NodeRecord } from '../records';

/**
 * Graph events. Versioned changes carry the full record as of the new version, so a node's
 * history is its stream and a projection applies each one as an upsert (fast rebuilds).
 */
export const GraphEventTypes = {
  NodeCreated: 'NodeCreated',
  NodeUpdated: 'NodeUpdated',
  NodeTombstoned: 'NodeTombstoned',
  NodeRestored: 'NodeRestored',
  /** server-maintained counters and salience decay: not versioned (REFERENCE §1.7) */
  NodeTouched: 'NodeTouched',
  EdgeCreated: 'EdgeCreated',
  EdgeUpdated: 'EdgeUpdated',
  EdgeTombstoned: 'EdgeTombstoned',
  EdgeRestored: 'EdgeRestored',
  AliasSet: 'AliasSet',
  AliasRemoved: 'AliasRemoved',
  SalienceDecayed: 'SalienceDecayed',
  EmbeddingConfigured: 'EmbeddingConfigured',
  EmbeddingSet: 'EmbeddingSet',
  EmbeddingDeleted: 'EmbeddingDeleted',
  SeriesPointsAppended: 'SeriesPointsAppended',
  GraphPurged: 'GraphPurged',
  GraphCleared: 'GraphCleared',
} as const;

export type ChangeType = 'create' | 'update' | 'tombstone' | 'restore';

export interface NodeVersionedData {
  node: NodeRecord;
  reason: string | null;
  /**
   * NodeCreated of an import only, when the snapshot gave one: the decay clock the node had
   * where it was exported (REFERENCE §7.2, §8.6), so a decay here never decays again a period
   * its salience was already decayed for. Absent everywhere else: the clock is unchanged.
   */
  last_decayed_at?: number;
  /** Present on a version whose classification differs from the one before it (REFERENCE §13.1). */
  classification_changed?: true;
}
export interface EdgeVersionedData {
  edge: EdgeRecord;
  reason: string | null;
}
/** A non-versioned change: a partial props patch and/or salience; `updated_at` given when it moves. */
export interface NodeTouchedData {
  uid: string;
  props?: Record<string, unknown>;
  salience?: number;
  updated_at?: number;
}
export interface AliasSetData {
  text: string;
  norm: string;
  canonical_uid: string;
  score: number;
  created_at: number;
}
export interface AliasRemovedData {
  norm: string;
  canonical_uid: string;
}
export interface SalienceDecayedData {
  items: { uid: string; salience: number }[];
  at: number;
}
export interface EmbeddingConfiguredData {
  provider: string;
  model: string;
  dimensions: number;
  distance_metric: 'cosine' | 'dot' | 'euclidean';
  configured_at: number;
  /** vectors dropped by a forced change */
  dropped: boolean;
}
export interface EmbeddingSetData {
  uid: string;
  vector: number[];
  model: string;
  updated_at: number;
  /** who produced the vector: `explicit` ones (PUT /node/{uid}/embedding) are pinned */
  source?: 'explicit' | 'provider';
  /** for provider vectors, a hash of the text embedded (retrieval/embedding-events.ts) */
  text_hash?: string | null;
}
export interface EmbeddingDeletedData {
  uid: string;
}
export interface SeriesPoint {
  ts: number;
  value: number;
  source_uid: string | null;
  note: string | null;
  recorded_at: number;
}
export interface SeriesPointsAppendedData {
  series_uid: string;
  points: SeriesPoint[];
}
export interface GraphPurgedData {
  node_uids: string[];
  edge_uids: string[];
  cutoff: number | null;
}
export interface GraphClearedData {
  at: number;
}

/** Which change_type a versioned event type records. */
export const CHANGE_TYPE_OF: Record<string, ChangeType> = {
  NodeCreated: 'create',
  NodeUpdated: 'update',
  NodeTombstoned: 'tombstone',
  NodeRestored: 'restore',
  EdgeCreated: 'create',
  EdgeUpdated: 'update',
  EdgeTombstoned: 'tombstone',
  EdgeRestored: 'restore',
};
