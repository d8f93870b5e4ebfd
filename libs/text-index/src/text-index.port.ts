export const TEXT_INDEX = Symbol('TEXT_INDEX');

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
}

export interface TextQuery {
  org: string;
  query: string;
  /** OR over these types (canonical names) */
  node_types?: string[];
  /** exclude these types (e.g. Document, Chunk for search-like actions) */
  exclude_node_types?: string[];
  layer?: string;
  limit: number;
  min_score?: number;
  /** restrict to these uids (scope / project filters) */
  uids?: string[];
}

export interface TextHit {
  uid: string;
  /** BM25 score, higher is better */
  score: number;
}

/**
 * Full-text index over live nodes. Written only by the text projection; queries are always
 * scoped to one organization.
 */
export interface TextIndex {
  upsert(docs: TextDocument[]): Promise<void>;
  remove(org: string, uids: string[]): Promise<void>;
  removeOrg(org: string): Promise<void>;
  search(q: TextQuery): Promise<TextHit[]>;
  count(org: string): Promise<number>;
  close(): Promise<void>;
}
