import type { EmbeddingConfig, SeriesPointRow } from './graph-read-model.port';

/**
 * Whole-graph reads of the maintenance routes (decay, purge, clear, export), beside the
 * graph read model: narrow bulk reads the per-object port does not offer. SQLite answers
 * them from the projections file, MongoDB from the server read model.
 */

export interface DecayCandidateRow {
  uid: string;
  salience: number;
  created_at: number;
  updated_at: number;
  last_decayed_at: number | null;
}

export interface DecayScope {
  layer?: string | null;
  node_types?: string[] | null;
  /** only these nodes (an empty list: none) */
  uids?: string[] | null;
}

export interface MaintenanceReads {
  /** live nodes in scope, oldest first (created_at, uid) */
  decayCandidates(org: string, scope: DecayScope): Promise<DecayCandidateRow[]>;
  /** uids of nodes or edges tombstoned at or before the cut-off (null: every tombstoned one), by uid */
  tombstonedUids(kind: 'nodes' | 'edges', org: string, cutoff: number | null): Promise<string[]>;
  /** every node and edge uid the organization has, tombstoned ones too */
  graphUids(org: string): Promise<{ nodes: string[]; edges: string[] }>;
}

export interface SnapshotScope {
  /** tombstoned nodes and edges too */
  include_tombstoned: boolean;
}

export interface SnapshotAliasRow {
  text: string;
  canonical_uid: string;
  score: number;
  created_at: number;
}

export type SnapshotSection = 'nodes' | 'edges' | 'aliases' | 'embeddings' | 'series_points';

/**
 * One point-in-time view of an organization's read model for export. Edges, aliases, vectors
 * and series points come only for exported nodes, so a snapshot imports cleanly into an
 * empty organization. Node and edge records come as JSON text, as stored.
 */
export interface SnapshotSource {
  count(what: SnapshotSection, org: string, scope: SnapshotScope): Promise<number>;
  embeddingConfig(org: string): Promise<EmbeddingConfig | null>;
  /** node records as stored, each with `last_decayed_at` appended when set (snapshot-node.ts) */
  nodeDocs(org: string, scope: SnapshotScope): AsyncIterable<string> | Iterable<string>;
  edgeDocs(org: string, scope: SnapshotScope): AsyncIterable<string> | Iterable<string>;
  aliases(org: string, scope: SnapshotScope): AsyncIterable<SnapshotAliasRow> | Iterable<SnapshotAliasRow>;
  embeddings(org: string, scope: SnapshotScope): AsyncIterable<{ uid: string; vector: number[] }> | Iterable<{ uid: string; vector: number[] }>;
  seriesPoints(org: string, scope: SnapshotScope): AsyncIterable<SeriesPointRow> | Iterable<SeriesPointRow>;
  close(): Promise<void>;
}
