import { EdgeRecord, NodeRecord } from '../records';

/** The versioned graph snapshot of `GET /export` and `POST /import` (REFERENCE §8.6). */
export const SNAPSHOT_FORMAT = 'strata.graph';
export const SNAPSHOT_FORMAT_VERSION = 1;

export type DistanceMetric = 'cosine' | 'dot' | 'euclidean';
export const DISTANCE_METRICS: readonly DistanceMetric[] = ['cosine', 'dot', 'euclidean'];

export interface SnapshotCounts {
  nodes: number;
  edges: number;
  aliases: number;
  embeddings: number;
  series_points: number;
}

export interface SnapshotAlias {
  text: string;
  canonical_uid: string;
  score: number;
  created_at: number;
}

export interface SnapshotEmbeddingConfig {
  /** added to the REFERENCE shape so an adopted configuration keeps its provider */
  provider: string;
  model: string;
  dimension: number;
  metric: DistanceMetric;
}

export interface SnapshotEmbeddings extends SnapshotEmbeddingConfig {
  items: { uid: string; vector: number[] }[];
}

export interface SnapshotSeriesPoint {
  series_uid: string;
  ts: number;
  value: number;
  source_uid: string | null;
  note: string | null;
  recorded_at: number;
}

/**
 * A node as a snapshot carries it: the node record, plus its decay clock when it has one.
 * `last_decayed_at` (unix s) is when `POST /decay` last changed the node's salience (REFERENCE
 * §7.2); an import restores it, so decay counts from the same moment as in the source. Added
 * within format version 1 (like `embeddings.provider`): absent in older snapshots, and for
 * nodes never decayed; an importer that does not know it ignores it.
 */
export type SnapshotNode = NodeRecord & { last_decayed_at?: number };

export interface GraphSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  format_version: typeof SNAPSHOT_FORMAT_VERSION;
  exported_at: number;
  counts: SnapshotCounts;
  nodes: SnapshotNode[];
  edges: EdgeRecord[];
  aliases: SnapshotAlias[];
  embeddings: SnapshotEmbeddings | null;
  series_points: SnapshotSeriesPoint[];
}

/** `POST /import` response (REFERENCE §8.6). */
export interface ImportCounts {
  nodes_imported: number;
  nodes_skipped: number;
  edges_imported: number;
  edges_skipped: number;
  aliases_imported: number;
  embeddings_imported: number;
  embeddings_skipped: number;
  series_points_imported: number;
}
