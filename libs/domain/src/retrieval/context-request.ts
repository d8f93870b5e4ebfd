import { Errors } from '../errors';
import { Layer } from '../records';
import { Body, parseIsoDateTime, present, readBoolean, readNumber, readString, readUid } from '../validation';
import { readNodeTypes, readOptionalLayer, readQueryText } from './retrieve-request';

/** `POST /retrieve/context` (REFERENCE §9.5), its defaults applied and limits clamped. */
export interface ContextRequest {
  query: string;
  node_limit: number;
  article_limit: number;
  chunk_limit: number;
  node_types?: string[];
  layer?: Layer;
  include_graph: boolean;
  min_similarity: number;
  /** never above node_limit: reserved slots are node slots */
  graph_expansion_limit: number;
  graph_max_depth: number;
  /** Unix seconds */
  valid_at?: number;
  project_uid?: string;
}

export const CONTEXT_NODE_MAX = 100;
export const CONTEXT_DEPTH_MAX = 4;
/** articles and chunks are capped like nodes: a context is meant to fit a prompt */
export const CONTEXT_LIST_MAX = 100;

/** A whole number ≥ 0, clamped to `max` (§1.9: above the maximum is clamped, not refused). */
function count(body: Body, field: string, def: number, max: number): number {
  const v = readNumber(body, field, { integer: true, min: 0 });
  return v === undefined ? def : Math.min(v, max);
}

export function readContextRequest(body: Body): ContextRequest {
  const query = readQueryText(body)!;
  const node_limit = count(body, 'node_limit', 10, CONTEXT_NODE_MAX);
  const min_similarity = readNumber(body, 'min_similarity', { min: 0 }) ?? 0;
  if (min_similarity > 1) throw Errors.invalidField('min_similarity', 'min_similarity must be between 0 and 1');
  return {
    query,
    node_limit,
    article_limit: count(body, 'article_limit', 3, CONTEXT_LIST_MAX),
    chunk_limit: count(body, 'chunk_limit', 0, CONTEXT_LIST_MAX),
    node_types: readNodeTypes(body),
    layer: readOptionalLayer(body),
    include_graph: readBoolean(body, 'include_graph') ?? true,
    min_similarity,
    graph_expansion_limit: Math.min(count(body, 'graph_expansion_limit', 0, CONTEXT_NODE_MAX), node_limit),
    graph_max_depth: count(body, 'graph_max_depth', 2, CONTEXT_DEPTH_MAX),
    valid_at: readValidAt(body),
    project_uid: readUid(body, 'project_uid'),
  };
}

/** `valid_at`: an ISO 8601 date or datetime, partial precision allowed ("2026", "2026-03"), as Unix seconds. */
export function readValidAt(body: Body, field = 'valid_at'): number | undefined {
  if (!present(body, field)) return undefined;
  const s = readString(body, field, { trim: true })!;
  const full = /^\d{4}$/.test(s) ? `${s}-01-01` : /^\d{4}-\d{2}$/.test(s) ? `${s}-01` : s;
  const ms = parseIsoDateTime(full);
  if (ms === null) throw Errors.invalidField(field, `${field} must be an ISO 8601 date or datetime`);
  return ms / 1000;
}
