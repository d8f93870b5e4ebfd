import { EdgeRecord, NodeRecord } from '../records';

/** Live nodes of some types, optionally narrowed by props values (null matches null or absent). */
export interface NodeQuery {
  node_types: readonly string[];
  props_equals?: Record<string, unknown>;
  props_in?: Record<string, readonly unknown[]>;
  /** only these nodes (a Space/Project-scoped caller's visible set) */
  uids?: readonly string[];
  /** never these nodes (the spaced nodes the caller may not read) */
  exclude_uids?: readonly string[];
}

export type NodeQueryOrder = 'created_desc' | 'updated_desc' | 'salience_desc';

/** Live edges; every given field ANDs. */
export interface EdgeQuery {
  from_uid?: string;
  to_uid?: string;
  touching?: string;
  edge_types?: readonly string[];
}

export interface PointQuery {
  start?: number;
  end?: number;
  order?: 'asc' | 'desc';
  limit: number;
  offset: number;
}

export interface StoredPoint {
  ts: number;
  value: number;
  source_uid: string | null;
  note: string | null;
  recorded_at: number;
}

/**
 * What a cognitive decider may read. In a write it is the request's transaction (its own
 * staged changes included); in a read it is the read model. Deciders never write through it:
 * they return the changes they want.
 */
export interface CognitiveView {
  /** any node, tombstoned ones too; null when unknown */
  node(uid: string): Promise<NodeRecord | null>;
  findNodes(q: NodeQuery, page: { limit: number; offset: number }, order?: NodeQueryOrder): Promise<{ items: NodeRecord[]; has_more: boolean }>;
  edges(q: EdgeQuery): Promise<EdgeRecord[]>;
  seriesPoints(seriesUid: string, q: PointQuery): Promise<{ items: StoredPoint[]; has_more: boolean }>;
  seriesPointCount(seriesUid: string): Promise<number>;
  /**
   * The same reads without the caller's Space/Project scope (absent: this view is not scoped),
   * for what the server maintains over every node, such as a container's step count and order
   */
  readonly unscoped?: CognitiveView;
}

/** Every match of a query (bounded lists: agents, approvals, preferences by key). */
export async function allNodes(view: CognitiveView, q: NodeQuery, order: NodeQueryOrder = 'created_desc'): Promise<NodeRecord[]> {
  return (await view.findNodes(q, { limit: 1_000_000, offset: 0 }, order)).items;
}
