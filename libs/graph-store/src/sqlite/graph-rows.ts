import { normaliseText } from '@strata/domain/catalogue';
import { NodeVersionedEvent, RecordedEvent } from '@strata/domain/events';
import { EdgeRecord, NodeRecord } from '@strata/domain/records';
import { decayClockOf, recordJson } from '../graph-changes';

/**
 * The bind parameters of one node or edge upsert, in the order of NODE_UPSERT / EDGE_UPSERT.
 * Pure, so a projection replay can build them on another thread than the one that writes.
 */
export type NodeRow = [
  org: string, uid: string, node_type: string, layer: string, label_norm: string, label_lower: string,
  agent_id: string | null, privacy_level: string, confidence: number, salience: number,
  created_at: number, updated_at: number, tombstone_at: number | null, last_decayed_at: number | null, version: number,
  rev: number, doc: string, created: 0 | 1,
];
export type EdgeRow = [
  org: string, uid: string, from_uid: string, to_uid: string, edge_type: string, layer: string,
  weight: number, confidence: number, created_at: number, updated_at: number, tombstone_at: number | null,
  tombstone_reason: string | null, version: number, rev: number, doc: string, created: 0 | 1,
];

export const NODE_UPSERT = `INSERT INTO nodes(org, uid, node_type, layer, label_norm, label_lower, agent_id, privacy_level, confidence, salience,
    created_at, updated_at, tombstone_at, last_decayed_at, version, vcount, rev, doc)
  VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,1,?,?)
  ON CONFLICT(org, uid) DO UPDATE SET node_type = excluded.node_type, layer = excluded.layer, label_norm = excluded.label_norm,
    label_lower = excluded.label_lower, agent_id = excluded.agent_id, privacy_level = excluded.privacy_level,
    confidence = excluded.confidence, salience = excluded.salience, created_at = excluded.created_at,
    updated_at = excluded.updated_at, tombstone_at = excluded.tombstone_at,
    last_decayed_at = coalesce(excluded.last_decayed_at, last_decayed_at), version = excluded.version,
    vcount = CASE WHEN ? THEN 1 ELSE vcount + 1 END, rev = excluded.rev, doc = excluded.doc`;

export const EDGE_UPSERT = `INSERT INTO edges(org, uid, from_uid, to_uid, edge_type, layer, weight, confidence, created_at, updated_at,
    tombstone_at, tombstone_reason, version, vcount, rev, doc)
  VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,1,?,?)
  ON CONFLICT(org, uid) DO UPDATE SET from_uid = excluded.from_uid, to_uid = excluded.to_uid, edge_type = excluded.edge_type,
    layer = excluded.layer, weight = excluded.weight, confidence = excluded.confidence, created_at = excluded.created_at,
    updated_at = excluded.updated_at, tombstone_at = excluded.tombstone_at, tombstone_reason = excluded.tombstone_reason,
    version = excluded.version, vcount = CASE WHEN ? THEN 1 ELSE vcount + 1 END, rev = excluded.rev, doc = excluded.doc`;

/**
 * `doc` is the record's JSON; `created` restarts the version count (a NodeCreated event).
 * `lastDecayedAt` sets the decay clock (an imported node's, REFERENCE §8.6); null keeps the
 * stored one (a new row starts without).
 */
export function nodeRow(org: string, n: NodeRecord, rev: number, created: boolean, doc: string, lastDecayedAt: number | null = null): NodeRow {
  return [
    org, n.uid, n.node_type, n.layer, normaliseText(n.label), n.label.toLowerCase(), n.agent_id, n.privacy_level,
    n.confidence, n.salience, n.created_at, n.updated_at, n.tombstone_at, lastDecayedAt, n.version, rev, doc, created ? 1 : 0,
  ];
}

/** The row of a versioned node event (NodeCreated, NodeUpdated, NodeTombstoned, NodeRestored). */
export function nodeEventRow(e: RecordedEvent<NodeVersionedEvent>): NodeRow {
  const d = e.data;
  return nodeRow(e.metadata.org_id, d.node, e.revision, e.type === 'NodeCreated', recordJson(e, 'node'), decayClockOf(d));
}

export function edgeRow(org: string, e: EdgeRecord, rev: number, created: boolean, doc: string): EdgeRow {
  return [
    org, e.uid, e.from_uid, e.to_uid, e.edge_type, e.layer, e.weight, e.confidence, e.created_at, e.updated_at,
    e.tombstone_at, e.tombstone_reason, e.version, rev, doc, created ? 1 : 0,
  ];
}
