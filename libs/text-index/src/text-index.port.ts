export const TEXT_INDEX = Symbol('TEXT_INDEX');

/** A node's salience when none is given (REFERENCE §1.5). */
export const DEFAULT_SALIENCE = 0.5;

/** One indexed node. Fields carry different weights: label > summary > props text. */
export interface TextDocument {
  org: string;
  uid: string;
  node_type: string;
  layer: string;
  label: string;
  summary: string;
  /** concatenated text of the string / string[] props the catalogue marks as searchable */
  body: string;
  /** the node's salience (0–1; absent: the default 0.5): breaks ties on score inside the index's own top-k */
  salience?: number;
}

/** A node's new salience (decay, reinforcement): no text changes. */
export interface SalienceChange {
  uid: string;
  salience: number;
}

export interface TextQuery {
  org: string;
  /**
   * Free text. Only its Unicode letter/digit runs are used, OR'ed together; it is never
   * interpreted as engine query syntax. A query with no such run matches nothing.
   */
  query: string;
  /** OR over these types (canonical names); an empty list is no filter */
  node_types?: string[];
  /** exclude these types (e.g. Document, Chunk for search-like actions) */
  exclude_node_types?: string[];
  layer?: string;
  /** how many hits, from the best (the caller's offset + page size); ≤ 0 returns nothing */
  limit: number;
  min_score?: number;
  /** restrict to these uids (scope / project filters); an empty list matches nothing */
  uids?: string[];
}

export interface TextHit {
  uid: string;
  /**
   * BM25 score, higher is better (SQLite FTS5). The Meilisearch adapter reports the sum of
   * its per-term ranking scores instead: same order of meaning, different scale.
   */
  score: number;
  /**
   * The node's salience as the index holds it (DEFAULT_SALIENCE where it was never given): the
   * key after the score in the hit order, so a caller re-sorting hits needs no look-up of it.
   */
  salience: number;
}

/**
 * Full-text index over live nodes. Written only by the text projection; queries are always
 * scoped to one organization.
 *
 * `search` answers the first `limit` hits of one total order: score descending, then salience
 * descending, then uid ascending (REFERENCE §5.1). The order is the index's own, so a page
 * [offset, offset + n) is exactly hits offset…offset+n−1 of `limit = offset + n`, however many
 * hits tie on score: callers never read past the page to settle ties.
 */
export interface TextIndex {
  upsert(docs: TextDocument[]): Promise<void>;
  /** Updates the salience of indexed nodes; uids not indexed are ignored. */
  setSalience(org: string, changes: SalienceChange[]): Promise<void>;
  remove(org: string, uids: string[]): Promise<void>;
  removeOrg(org: string): Promise<void>;
  search(q: TextQuery): Promise<TextHit[]>;
  count(org: string): Promise<number>;
  close(): Promise<void>;
}
