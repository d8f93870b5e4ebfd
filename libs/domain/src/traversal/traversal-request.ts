import { EDGE_TYPE_NAME_RE, canonicalEdgeTypeName } from '../catalogue';
import { Errors } from '../errors';
import { Body, present, readBoolean, readNumber, readUid } from '../validation';
import { DIRECTIONS, Direction, EdgeFollowRules } from './traversal-graph';

/** Caps of REFERENCE §1.13 and §6.1. */
export const TRAVERSAL_LIMITS = {
  max_depth: 16,
  max_nodes: 10_000,
  default_max_nodes: 500,
  k: 25,
  default_k: 3,
  max_hops: 16,
  default_max_hops: 8,
} as const;

export const TRAVERSE_ACTIONS = ['chain', 'neighborhood', 'path', 'subgraph', 'top_k_paths'] as const;
export type TraverseAction = (typeof TRAVERSE_ACTIONS)[number];

export const DEFAULT_MAX_DEPTH: Record<TraverseAction, number> = { chain: 5, neighborhood: 2, path: 5, subgraph: 2, top_k_paths: 8 };

/** Followed by `chain` when the request names no edge types. */
export const CHAIN_REASONING_EDGE_TYPES: readonly string[] = Object.freeze([
  'Supports',
  'Refutes',
  'Justifies',
  'HasPremise',
  'HasConclusion',
  'HasWarrant',
  'DerivedFrom',
  'ExtractedFrom',
]);

/** An integer in [1, cap]: above the cap is clamped, anything else is a 400. */
export function readClampedCount(body: Body, field: string, def: number, cap: number, label = field): number {
  const v = readNumber(body, field, { integer: true, min: 1, label });
  return v === undefined ? def : Math.min(v, cap);
}

/** Edge type names from an array, or (GET) a comma-separated string; canonicalised. */
export function readEdgeTypeList(body: Body, field: string): string[] | undefined {
  let v = body[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') v = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(v)) throw Errors.invalidField(field, `${field} must be an array of edge type names`);
  return v.map((t, i) => {
    if (typeof t !== 'string' || !EDGE_TYPE_NAME_RE.test(t)) throw Errors.invalidField(field, `${field}[${i}] is not a valid edge type name`);
    return canonicalEdgeTypeName(t);
  });
}

export function readDirection(body: Body): Direction {
  const v = body.direction;
  if (v === undefined || v === null) return 'both';
  if (typeof v !== 'string' || !DIRECTIONS.includes(v as Direction))
    throw Errors.invalidField('direction', `direction must be one of: ${DIRECTIONS.join(', ')}`, { allowed: [...DIRECTIONS] });
  return v as Direction;
}

/** edge_types, exclude_edge_types and weight_threshold; `defaultTypes` when none are named. */
export function readFollowRules(body: Body, defaultTypes?: readonly string[]): EdgeFollowRules {
  const rules: EdgeFollowRules = {};
  const types = readEdgeTypeList(body, 'edge_types') ?? defaultTypes;
  if (types) rules.edge_types = new Set(types);
  const exclude = readEdgeTypeList(body, 'exclude_edge_types');
  if (exclude && exclude.length) rules.exclude_edge_types = new Set(exclude);
  const wt = readNumber(body, 'weight_threshold', { min: 0, max: 1 });
  if (wt !== undefined) rules.weight_threshold = wt;
  return rules;
}

/** A traversal start; the names `uid` and `from_uid` are refused so clients notice the typo. */
export function readStartUid(body: Body, field = 'start_uid'): string {
  if (!present(body, field) && (present(body, 'uid') || present(body, 'from_uid')))
    throw Errors.missingField(field, `${field} is required (the names uid and from_uid are not accepted)`);
  return readUid(body, field, { required: true })!;
}

export interface TraversalRequest {
  action: TraverseAction;
  start_uid: string;
  end_uid?: string;
  max_depth: number;
  direction: Direction;
  rules: EdgeFollowRules;
  max_nodes: number;
  include_provenance: boolean;
  k: number;
  max_hops: number;
  max_cost?: number;
}

/** Reads and validates a `POST /traverse` body for one action (REFERENCE §6.1). */
export function readTraversalRequest(action: TraverseAction, body: Body): TraversalRequest {
  const start_uid = readStartUid(body);
  const needsEnd = action === 'path' || action === 'top_k_paths';
  const end_uid = needsEnd ? readUid(body, 'end_uid', { required: true }) : undefined;
  const max_depth = readClampedCount(body, 'max_depth', DEFAULT_MAX_DEPTH[action], TRAVERSAL_LIMITS.max_depth);
  const direction = readDirection(body);
  const rules = readFollowRules(body, action === 'chain' ? CHAIN_REASONING_EDGE_TYPES : undefined);
  const max_nodes = readClampedCount(body, 'max_nodes', TRAVERSAL_LIMITS.default_max_nodes, TRAVERSAL_LIMITS.max_nodes);
  const include_provenance = readBoolean(body, 'include_provenance') ?? false;
  const k = readClampedCount(body, 'k', TRAVERSAL_LIMITS.default_k, TRAVERSAL_LIMITS.k);
  const max_hops = readClampedCount(body, 'max_hops', TRAVERSAL_LIMITS.default_max_hops, TRAVERSAL_LIMITS.max_hops);
  const max_cost = readNumber(body, 'max_cost', { min: 0 });
  return { action, start_uid, end_uid, max_depth, direction, rules, max_nodes, include_provenance, k, max_hops, max_cost };
}
