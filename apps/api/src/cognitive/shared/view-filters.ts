import { EdgeQuery, NodeQuery } from '@strata/domain/cognitive';
import { EdgeFilter, NodeFilter } from '@strata/graph-store/graph-read-model.port';

/** Cognitive queries read live objects only. */
export function toNodeFilter(q: NodeQuery): NodeFilter {
  const f: NodeFilter = { node_types: [...q.node_types] };
  if (q.props_equals) f.props_equals = q.props_equals;
  if (q.props_in) f.props_in = Object.fromEntries(Object.entries(q.props_in).map(([k, v]) => [k, [...v]]));
  if (q.uids) f.uids = [...q.uids];
  if (q.exclude_uids) f.exclude_uids = [...q.exclude_uids];
  return f;
}

export function toEdgeFilter(q: EdgeQuery): EdgeFilter {
  const f: EdgeFilter = {};
  if (q.from_uid !== undefined) f.from_uid = q.from_uid;
  if (q.to_uid !== undefined) f.to_uid = q.to_uid;
  if (q.touching !== undefined) f.touching = q.touching;
  if (q.edge_types) f.edge_types = [...q.edge_types];
  return f;
}
