import { NODE_TYPE_NAME_RE, canonicalNodeTypeName } from '../catalogue';
import { Errors } from '../errors';
import { assertLayer } from '../graph/node-decider';
import { Layer } from '../records';
import { Body, present, readNumber, readPage, readString } from '../validation';

export const RETRIEVE_ACTIONS = [
  'text',
  'semantic',
  'hybrid',
  'active_goals',
  'open_questions',
  'weak_claims',
  'pending_approvals',
  'unresolved_contradictions',
  'merge_candidates',
  'curation_counts',
  'stale_derivations',
  'preferences',
  'layer',
  'recent',
] as const;
export type RetrieveAction = (typeof RETRIEVE_ACTIONS)[number];

/** Search-style `limit` / `k` never exceed this (clamped, REFERENCE §1.13). */
export const SEARCH_MAX = 1000;
/** Left out of search-like results unless `node_types` names them (§5.1). */
export const SEARCH_HIDDEN_TYPES: readonly string[] = Object.freeze(['Document', 'Chunk']);

/** The query text of a search: required, non-blank, at most 10,000 characters. */
export function readQueryText(body: Body, field = 'query', opts: { required?: boolean; aliases?: string[] } = {}): string | undefined {
  let name = field;
  if (!present(body, field)) for (const a of opts.aliases ?? []) if (present(body, a)) name = a;
  return readString(body, name, { required: opts.required ?? true, max: 10_000, label: field })?.trim();
}

/** A search-style count: an integer ≥ 0 (only negative or non-integer values are refused, §1.9), clamped to `max`. */
export function readSearchCount(body: Body, field: string, def: number, max = SEARCH_MAX): number {
  const v = readNumber(body, field, { integer: true, min: 0 });
  return v === undefined ? def : Math.min(v, max);
}

/**
 * `offset` of a search-like result (§1.9, §5.1): an integer ≥ 0, else 400 `invalid_field`;
 * 0 when absent. The page is then results [offset, offset + limit) of the full order.
 */
export function readSearchOffset(body: Body): number {
  return readPage(body, { limit: SEARCH_MAX, max: SEARCH_MAX }).offset;
}

/** `node_types` (or an alias) as canonical names: an array, or one name, or comma-separated. */
export function readNodeTypes(body: Body, field = 'node_types', aliases: string[] = []): string[] | undefined {
  let name = field;
  if (!present(body, field)) for (const a of aliases) if (present(body, a)) name = a;
  let v = body[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'string') v = v.split(',').map((s) => s.trim()).filter(Boolean);
  if (!Array.isArray(v)) throw Errors.invalidField(name, `${name} must be an array of node type names`);
  if (v.length > 100) throw Errors.invalidField(name, `${name} takes at most 100 names`);
  const out = v.map((t, i) => {
    if (typeof t !== 'string' || !NODE_TYPE_NAME_RE.test(t)) throw Errors.invalidField(name, `${name}[${i}] is not a valid node type name`);
    return canonicalNodeTypeName(t);
  });
  return out.length ? [...new Set(out)] : undefined;
}

export function readOptionalLayer(body: Body, field = 'layer'): Layer | undefined {
  return present(body, field) ? assertLayer(body[field], field) : undefined;
}

/** Type filters of a search-like action: the named types, or everything except Document/Chunk. */
export function searchTypeFilter(nodeTypes: string[] | undefined): { node_types?: string[]; exclude_node_types?: string[] } {
  return nodeTypes ? { node_types: nodeTypes } : { exclude_node_types: [...SEARCH_HIDDEN_TYPES] };
}
