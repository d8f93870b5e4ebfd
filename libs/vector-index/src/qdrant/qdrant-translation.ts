import { createHash } from 'node:crypto';
import type { DistanceMetric, VectorQuery } from '../vector-index.port';

/** Pure mapping between the VectorIndex port and Qdrant ids, collections, filters and scores. */

export type QdrantDistance = 'Cosine' | 'Dot' | 'Euclid';

export const DEFAULT_COLLECTION_PREFIX = 'strata';

/** Fixed namespace for point ids (a UUID of our own; changing it re-keys every point). */
export const POINT_ID_NAMESPACE = '6f1d3c52-7a4e-4c1b-9b7e-2f0a8d5e9c31';

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/** RFC 4122 version-5 UUID (SHA-1 of namespace + name). */
export function uuidV5(name: string, namespace: string = POINT_ID_NAMESPACE): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const b = hash.subarray(0, 16);
  b[6] = (b[6] & 0x0f) | 0x50; // version 5
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = b.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Qdrant point ids must be an unsigned integer or a UUID: `${org}:${uid}` becomes a
 * deterministic UUID (org and uid are also kept in the payload). The org is length-prefixed
 * so that ("a:b", "c") and ("a", "b:c") cannot collide.
 */
export function pointId(org: string, uid: string): string {
  return uuidV5(`${org.length}:${org}:${uid}`);
}

/**
 * One collection per organization, because each organization configures its own dimensions
 * and metric (§8.7) and a reconfigure drops every vector: in Qdrant that is one collection
 * delete + create. Name: prefix, a readable slug of the org, and a hash that keeps distinct
 * orgs distinct after slugging. Only [a-z0-9_-], at most ~80 characters.
 */
export function collectionName(org: string, prefix: string = DEFAULT_COLLECTION_PREFIX): string {
  const slug = org
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  const hash = createHash('sha256').update(org, 'utf8').digest('hex').slice(0, 16);
  return `${prefix}_${slug || 'org'}_${hash}`;
}

export function toQdrantDistance(metric: DistanceMetric): QdrantDistance {
  switch (metric) {
    case 'cosine':
      return 'Cosine';
    case 'dot':
      return 'Dot';
    case 'euclidean':
      return 'Euclid';
    default:
      throw new Error(`unsupported metric: ${String(metric)}`);
  }
}

export function fromQdrantDistance(distance: string): DistanceMetric {
  switch (distance) {
    case 'Cosine':
      return 'cosine';
    case 'Dot':
      return 'dot';
    case 'Euclid':
      return 'euclidean';
    default:
      throw new Error(`collection uses a distance Strata does not manage: ${distance}`);
  }
}

/**
 * Qdrant's score → the port's score. Cosine: Qdrant returns cosine similarity, which is
 * 1 − cosine distance. Dot: the raw dot product. Euclid: Qdrant returns the distance (lower
 * is better); the port wants 1 / (1 + distance).
 */
export function toPortScore(metric: DistanceMetric, qdrantScore: number): number {
  return metric === 'euclidean' ? 1 / (1 + qdrantScore) : qdrantScore;
}

/**
 * The port's threshold (keep score ≥ t) as Qdrant's `score_threshold`. For Euclid Qdrant's
 * threshold is a maximum distance: score ≥ t ⇔ distance ≤ 1/t − 1. `null` means no point can
 * pass (t > 1 under euclidean); `undefined` means no threshold needed.
 */
export function toQdrantScoreThreshold(metric: DistanceMetric, threshold: number | undefined | null): number | undefined | null {
  if (threshold === undefined || threshold === null) return undefined;
  if (metric !== 'euclidean') return threshold;
  if (threshold <= 0) return undefined; // every euclidean score is > 0
  if (threshold > 1) return null;
  return 1 / threshold - 1;
}

export interface QdrantCondition {
  key: string;
  match: { value: string } | { any: string[] };
}

export interface QdrantFilter {
  must: QdrantCondition[];
  must_not?: QdrantCondition[];
}

/** Payload filter for one search: always the org, then types (any of), excluded types, layer. */
export function buildPointFilter(q: Pick<VectorQuery, 'org' | 'node_types' | 'exclude_node_types' | 'layer'>): QdrantFilter {
  const filter: QdrantFilter = { must: [{ key: 'org', match: { value: q.org } }] };
  if (q.node_types?.length) filter.must.push({ key: 'node_type', match: { any: [...q.node_types] } });
  if (q.layer !== undefined && q.layer !== null) filter.must.push({ key: 'layer', match: { value: q.layer } });
  if (q.exclude_node_types?.length) filter.must_not = [{ key: 'node_type', match: { any: [...q.exclude_node_types] } }];
  return filter;
}

export interface PointPayload {
  org: string;
  uid: string;
  node_type: string;
  layer: string;
}

/** Payload fields that get a keyword index (filters and the org guard). */
export const INDEXED_PAYLOAD_FIELDS = ['org', 'node_type', 'layer'] as const;

/**
 * The collections a prefix owns, among all of a server's collections: `${prefix}_…`, as
 * `collectionName` makes them. A projection rebuild drops exactly these.
 */
export function ownedCollections(names: string[], prefix: string = DEFAULT_COLLECTION_PREFIX): string[] {
  return names.filter((n) => n.startsWith(`${prefix}_`)).sort();
}

/** A stored vector as the port hands it out: the single unnamed dense vector, or undefined. */
export function denseVectorOf(vector: unknown): number[] | undefined {
  return Array.isArray(vector) && vector.every((x) => typeof x === 'number') ? (vector as number[]) : undefined;
}
