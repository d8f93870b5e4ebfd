import { IndexDescription } from 'mongodb';
import { GRAPH_COLLECTIONS, GraphCollection } from './mongo-documents';

/**
 * Indexes of the MongoDB read model, mirroring the SQLite ones. Every index starts with
 * `org` (tenancy is structural: no query runs across organizations). Record fields are
 * indexed where they live, under `doc.`.
 */
export const GRAPH_INDEXES: Record<GraphCollection, IndexDescription[]> = {
  nodes: [
    { key: { org: 1, uid: 1 }, name: 'org_uid', unique: true },
    { key: { org: 1, 'doc.created_at': -1, uid: 1 }, name: 'org_created' },
    { key: { org: 1, 'doc.updated_at': -1, uid: 1 }, name: 'org_updated' },
    { key: { org: 1, 'doc.node_type': 1, 'doc.created_at': -1 }, name: 'org_type_created' },
    { key: { org: 1, 'doc.layer': 1, 'doc.created_at': -1 }, name: 'org_layer_created' },
    { key: { org: 1, 'doc.agent_id': 1, 'doc.created_at': -1 }, name: 'org_agent_created' },
    { key: { org: 1, label_norm: 1 }, name: 'org_label_norm' },
    { key: { org: 1, 'doc.tombstone_at': 1 }, name: 'org_tombstone' },
  ],
  edges: [
    { key: { org: 1, uid: 1 }, name: 'org_uid', unique: true },
    { key: { org: 1, 'doc.from_uid': 1, 'doc.edge_type': 1 }, name: 'org_from_type' },
    { key: { org: 1, 'doc.to_uid': 1, 'doc.edge_type': 1 }, name: 'org_to_type' },
    { key: { org: 1, 'doc.edge_type': 1, 'doc.created_at': 1 }, name: 'org_type_created' },
    { key: { org: 1, 'doc.created_at': 1, uid: 1 }, name: 'org_created' },
  ],
  aliases: [
    { key: { org: 1, norm: 1, canonical_uid: 1 }, name: 'org_norm_uid', unique: true },
    { key: { org: 1, canonical_uid: 1 }, name: 'org_uid' },
    { key: { org: 1, created_at: 1, norm: 1 }, name: 'org_created' },
  ],
  embeddings: [{ key: { org: 1, uid: 1 }, name: 'org_uid', unique: true }],
  embeddingConfig: [{ key: { org: 1 }, name: 'org', unique: true }],
  seriesPoints: [{ key: { org: 1, series_uid: 1, ts: 1 }, name: 'org_series_ts', unique: true }],
  membershipMarks: [{ key: { org: 1 }, name: 'org', unique: true }],
};

export function collectionName(c: GraphCollection): string {
  return GRAPH_COLLECTIONS[c];
}
