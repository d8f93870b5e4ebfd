import { Document, Filter } from 'mongodb';
import { EdgeFilter, NodeFilter, NodeOrder } from '../graph-read-model.port';

/**
 * Read-model filters and sort orders as MongoDB query documents. Pure, and kept clause for
 * clause beside the SQLite adapter's WHERE builder so both answer the same questions the
 * same way. Record fields live under `doc.`; `org`, `uid` and the derived label columns are
 * top-level.
 */

type Clause = Document;

/** Sort orders: the same keys and the same uid tie-break as the SQLite ORDER BY. */
export const NODE_SORT: Record<NodeOrder, Record<string, 1 | -1>> = {
  created_desc: { 'doc.created_at': -1, uid: 1 },
  created_asc: { 'doc.created_at': 1, uid: 1 },
  updated_desc: { 'doc.updated_at': -1, uid: 1 },
  salience_desc: { 'doc.salience': -1, 'doc.updated_at': -1, uid: 1 },
  confidence_asc: { 'doc.confidence': 1, 'doc.created_at': -1, uid: 1 },
};
export const EDGE_SORT: Record<string, 1 | -1> = { 'doc.created_at': 1, uid: 1 };

/** Matches nothing (an empty IN list). */
const NOTHING: Clause = { uid: { $in: [] } };

const SAFE_PROP = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function nodeFilterToMongo(org: string, f: NodeFilter): Filter<Document> {
  const c: Clause[] = [{ org }];
  if (f.only_tombstoned) c.push({ 'doc.tombstone_at': { $ne: null } });
  else if (!f.include_tombstoned) c.push({ 'doc.tombstone_at': null });
  // a number never equals null, so $lte alone also says "is tombstoned"
  if (f.tombstoned_before !== undefined) c.push({ 'doc.tombstone_at': { $lte: f.tombstoned_before } });
  if (f.node_types && f.node_types.length) c.push({ 'doc.node_type': { $in: f.node_types } });
  if (f.exclude_node_types && f.exclude_node_types.length) c.push({ 'doc.node_type': { $nin: f.exclude_node_types } });
  if (f.layer !== undefined) c.push({ 'doc.layer': f.layer });
  // SQL `agent_id = ?` never matches a NULL column; a string here never matches null either
  if (f.agent_id !== undefined) c.push({ 'doc.agent_id': f.agent_id });
  if (f.privacy_level !== undefined) c.push({ 'doc.privacy_level': f.privacy_level });
  if (f.label_contains !== undefined) c.push({ label_lower: { $regex: escapeRegex(f.label_contains.toLowerCase()) } });
  if (f.label_norm !== undefined) c.push({ label_norm: f.label_norm });
  if (f.created_after !== undefined) c.push({ 'doc.created_at': { $gte: f.created_after } });
  if (f.created_before !== undefined) c.push({ 'doc.created_at': { $lte: f.created_before } });
  if (f.confidence_lt !== undefined) c.push({ 'doc.confidence': { $lt: f.confidence_lt } });
  if (f.confidence_min !== undefined) c.push({ 'doc.confidence': { $gte: f.confidence_min } });
  if (f.salience_min !== undefined) c.push({ 'doc.salience': { $gte: f.salience_min } });
  if (f.uids) c.push(f.uids.length ? { uid: { $in: f.uids } } : NOTHING);
  if (f.exclude_uids && f.exclude_uids.length) c.push({ uid: { $nin: f.exclude_uids } });
  c.push(...propsClauses(f.props_equals, f.props_in));
  return combine(c);
}

/** Edge filter; null when it can match nothing (an empty `among`). */
export function edgeFilterToMongo(org: string, f: EdgeFilter): Filter<Document> | null {
  const c: Clause[] = [{ org }];
  if (!f.include_tombstoned) c.push({ 'doc.tombstone_at': null });
  if (f.from_uid !== undefined) c.push({ 'doc.from_uid': f.from_uid });
  if (f.to_uid !== undefined) c.push({ 'doc.to_uid': f.to_uid });
  if (f.touching !== undefined) c.push({ $or: [{ 'doc.from_uid': f.touching }, { 'doc.to_uid': f.touching }] });
  if (f.among !== undefined) {
    if (f.among.length === 0) return null;
    c.push({ 'doc.from_uid': { $in: f.among } }, { 'doc.to_uid': { $in: f.among } });
  }
  if (f.tombstone_reason !== undefined) c.push({ 'doc.tombstone_reason': f.tombstone_reason });
  if (f.edge_types && f.edge_types.length) c.push({ 'doc.edge_type': { $in: f.edge_types } });
  c.push(...propsClauses(f.props_equals, f.props_in));
  return combine(c);
}

/**
 * props.<field> equals / is one of. null matches null or absent, like SQLite's
 * json_extract(...) IS NULL. An array-valued field never equals a scalar (json_extract
 * yields the array's JSON text), so arrays are excluded where MongoDB would match elements.
 */
export function propsClauses(eq?: Record<string, unknown>, inn?: Record<string, unknown[]>): Clause[] {
  const out: Clause[] = [];
  for (const [field, value] of Object.entries(eq ?? {})) {
    const path = propPath(field);
    if (value === null) out.push({ [path]: null });
    else out.push({ [path]: { $eq: value } }, { [path]: { $not: { $type: 'array' } } });
  }
  for (const [field, values] of Object.entries(inn ?? {})) {
    const path = propPath(field);
    if (values.length === 0) {
      out.push(NOTHING);
      continue;
    }
    out.push({ [path]: { $in: values } });
    if (values.some((v) => v !== null)) out.push({ [path]: { $not: { $type: 'array' } } });
  }
  return out;
}

function propPath(field: string): string {
  // the same guard as SQLite: a props filter names one plain field, never a path or operator
  if (!SAFE_PROP.test(field)) throw new Error(`unsafe props field ${field}`);
  return `doc.props.${field}`;
}

/** Series points of one series, [start, end). */
export function seriesFilterToMongo(org: string, seriesUid: string, q: { start?: number; end?: number }): Filter<Document> {
  const f: Document = { org, series_uid: seriesUid };
  if (q.start !== undefined || q.end !== undefined) {
    const ts: Document = {};
    if (q.start !== undefined) ts.$gte = q.start;
    if (q.end !== undefined) ts.$lt = q.end;
    f.ts = ts;
  }
  return f;
}

/**
 * One filter document from clauses. Clauses on distinct keys merge into one object (what the
 * query planner reads best); a key that repeats keeps every clause under $and.
 */
export function combine(clauses: Clause[]): Filter<Document> {
  const merged: Document = {};
  const rest: Clause[] = [];
  for (const clause of clauses) {
    const keys = Object.keys(clause);
    if (keys.some((k) => k in merged)) rest.push(clause);
    else Object.assign(merged, clause);
  }
  if (rest.length) merged.$and = [...(merged.$and ?? []), ...rest];
  return merged;
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
