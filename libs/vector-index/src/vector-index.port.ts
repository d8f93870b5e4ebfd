export const VECTOR_INDEX = Symbol('VECTOR_INDEX');

export type DistanceMetric = 'cosine' | 'dot' | 'euclidean';

export interface VectorSpaceConfig {
  dimensions: number;
  metric: DistanceMetric;
}

export interface VectorItem {
  uid: string;
  vector: number[] | Float32Array;
  node_type: string;
  layer: string;
}

export interface VectorQuery {
  org: string;
  vector: number[] | Float32Array;
  k: number;
  node_types?: string[];
  exclude_node_types?: string[];
  layer?: string;
  /** drop hits scoring below this */
  threshold?: number;
}

export interface VectorHit {
  uid: string;
  /** higher is better: cosine → 1 − cosine distance; dot → raw dot; euclidean → 1/(1+d) */
  score: number;
}

/**
 * Approximate nearest-neighbour index, one vector space per organization. Written only by
 * the vector projection; rebuildable from the log.
 *
 * Adapters agree on: `search`/`count` of an unconfigured organization give [] / 0; `upsert`
 * before `configure` throws DomainError 501 `embedding_not_configured`; a vector of the wrong
 * length throws DomainError 400 `dimension_mismatch`; upserting an existing uid replaces its
 * vector; equal scores are ordered by uid.
 */
export interface VectorIndex {
  /** (re)creates the organization's space; drops every vector when dimensions or metric change */
  configure(org: string, config: VectorSpaceConfig): Promise<void>;
  upsert(org: string, items: VectorItem[]): Promise<void>;
  remove(org: string, uids: string[]): Promise<void>;
  removeOrg(org: string): Promise<void>;
  search(q: VectorQuery): Promise<VectorHit[]>;
  count(org: string): Promise<number>;
  /** persists in-memory state (embedded adapter); no-op for servers */
  flush(): Promise<void>;
  close(): Promise<void>;
}
