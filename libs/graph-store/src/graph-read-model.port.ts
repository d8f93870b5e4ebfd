import { EdgeRecord, NodeRecord } from '@strata/domain/records';

export const GRAPH_READ_MODEL = Symbol('GRAPH_READ_MODEL');

/** Filters shared by node lists, retrieval actions and bulk operations. Every field ANDs. */
export interface NodeFilter {
  node_types?: string[];
  exclude_node_types?: string[];
  layer?: string;
  agent_id?: string;
  label_contains?: string;
  privacy_level?: string;
  created_after?: number;
  created_before?: number;
  confidence_lt?: number;
  confidence_min?: number;
  salience_min?: number;
  include_tombstoned?: boolean;
  only_tombstoned?: boolean;
  tombstoned_before?: number;
  uids?: string[];
  /** never these uids (the spaced nodes a caller may not read, REFERENCE §13.1) */
  exclude_uids?: string[];
  /** props.<field> equals value (null matches null or absent) */
  props_equals?: Record<string, unknown>;
  /** props.<field> is one of values (null in the list matches null or absent) */
  props_in?: Record<string, unknown[]>;
  /** normalised label equals (entity find-or-create) */
  label_norm?: string;
}

/** `confidence_asc`: weakest first, then newest (the weak-claims queue). */
export type NodeOrder = 'created_desc' | 'created_asc' | 'updated_desc' | 'salience_desc' | 'confidence_asc';

export interface Page {
  limit: number;
  offset: number;
}

export interface PageResult<T> {
  items: T[];
  has_more: boolean;
}

export interface EdgeFilter {
  from_uid?: string;
  to_uid?: string;
  /** either endpoint equals */
  touching?: string;
  /** both endpoints in the set */
  among?: string[];
  /** canonical type names */
  edge_types?: string[];
  include_tombstoned?: boolean;
  /** props.<field> equals value (null matches null or absent) */
  props_equals?: Record<string, unknown>;
  props_in?: Record<string, unknown[]>;
  /** only edges tombstoned with this reason (cascade restores) */
  tombstone_reason?: string;
}

export interface AliasRecord {
  text: string;
  norm: string;
  canonical_uid: string;
  score: number;
  created_at: number;
}

export interface EmbeddingConfig {
  provider: string;
  model: string;
  dimensions: number;
  distance_metric: 'cosine' | 'dot' | 'euclidean';
  configured_at: number;
}

export interface StoredEmbedding {
  uid: string;
  vector: number[];
  model: string;
  dimension: number;
  updated_at: number;
}

export interface GraphStats {
  total_nodes: number;
  live_nodes: number;
  tombstoned_nodes: number;
  total_edges: number;
  live_edges: number;
  tombstoned_edges: number;
  nodes_by_type: Record<string, number>;
  nodes_by_layer: Record<string, number>;
  edges_by_type: Record<string, number>;
  total_versions: number;
  total_aliases: number;
  embedding_count: number;
  series_point_count: number;
}

export interface SeriesPointRow {
  series_uid: string;
  ts: number;
  value: number;
  source_uid: string | null;
  note: string | null;
  recorded_at: number;
}

/**
 * The graph read model: what every query reads. Written only by the graph projection.
 * Every method takes the organization; there is no unscoped query.
 */
export interface GraphReadModel {
  getNode(org: string, uid: string): Promise<NodeRecord | null>;
  /**
   * The node record as the JSON text the store keeps, read synchronously — only adapters that
   * store records as JSON in-process offer it (SQLite); GET /node/{uid} then sends it as is.
   */
  getNodeDocSync?(org: string, uid: string): string | null;
  getNodes(org: string, uids: string[]): Promise<Map<string, NodeRecord>>;
  /** the stream revision of the node (for optimistic concurrency); -1 when unknown */
  nodeRevision(org: string, uid: string): Promise<number>;
  /**
   * The log position of the last change to the organization's Space membership (an InSpace
   * edge, a Space, a classified node, a purge or clear); 0 when none. Equal marks mean equal
   * membership, so a reader may keep the membership it read with the mark.
   */
  membershipMark(org: string): Promise<number>;
  listNodes(org: string, filter: NodeFilter, page: Page, order?: NodeOrder): Promise<PageResult<NodeRecord>>;
  countNodes(org: string, filter: NodeFilter): Promise<number>;
  getEdge(org: string, uid: string): Promise<EdgeRecord | null>;
  edgeRevision(org: string, uid: string): Promise<number>;
  listEdges(org: string, filter: EdgeFilter, limit?: number): Promise<EdgeRecord[]>;
  /**
   * Live edges touching each of `uids`, read at once: per uid exactly what
   * `listEdges(org, {touching: uid}, limitEach)` gives (oldest first, ties by uid). Optional:
   * a reader without it is asked uid by uid (traversals that expand a whole frontier per hop).
   */
  edgesTouchingEach?(org: string, uids: string[], limitEach: number): Promise<Map<string, EdgeRecord[]>>;
  aliasesOf(org: string, uid: string): Promise<AliasRecord[]>;
  aliasesByNorm(org: string, norm: string): Promise<AliasRecord[]>;
  allAliases(org: string): Promise<AliasRecord[]>;
  embeddingConfig(org: string): Promise<EmbeddingConfig | null>;
  getEmbedding(org: string, uid: string): Promise<StoredEmbedding | null>;
  stats(org: string): Promise<GraphStats>;
  /** number of version records held for these nodes and edges (purge counts) */
  versionCount(org: string, nodeUids: string[], edgeUids: string[]): Promise<number>;
  seriesPointCount(org: string, seriesUid: string): Promise<number>;
  seriesPoints(
    org: string,
    seriesUid: string,
    q: { start?: number; end?: number; order?: 'asc' | 'desc'; limit: number; offset: number },
  ): Promise<PageResult<SeriesPointRow>>;
}
