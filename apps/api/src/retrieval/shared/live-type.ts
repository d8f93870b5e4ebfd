import { SEARCH_HIDDEN_TYPES } from '@strata/domain/retrieval';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { fastStore } from './fast-store';

// answered from the nodes_type index (live nodes only), no document read
const HOLDS_SQL = 'SELECT 1 FROM nodes WHERE org = ? AND node_type = ? AND tombstone_at IS NULL LIMIT 1';

/**
 * Whether the organization holds at least one live node of `nodeType` (one index probe). A
 * text ranking filtered to a type still walks every match of the query, however few of them
 * are of that type: a type the organization lacks (no Articles, no ingested Chunks yet) is
 * answered without it.
 */
export async function holdsLiveType(graph: GraphReadModel, org: string, nodeType: string): Promise<boolean> {
  const fast = fastStore(graph);
  if (fast) return fast.stmt(HOLDS_SQL).get(org, nodeType) !== undefined;
  return (await graph.listNodes(org, { node_types: [nodeType] }, { limit: 1, offset: 0 })).items.length > 0;
}

/**
 * The index filter of a ranking over `nodeTypes` (absent: every type but the hidden ones).
 * Only hidden types the organization holds a live node of are excluded: the text index
 * tests a row's type on every match it walks, and an organization without ingested
 * Documents and Chunks has nothing to exclude (the answer is the same without the test).
 */
export async function rankingTypeFilter(
  graph: GraphReadModel,
  org: string,
  nodeTypes: string[] | undefined,
): Promise<{ node_types?: string[]; exclude_node_types?: string[] }> {
  if (nodeTypes) return { node_types: nodeTypes };
  const held: string[] = [];
  for (const t of SEARCH_HIDDEN_TYPES) if (await holdsLiveType(graph, org, t)) held.push(t);
  return held.length ? { exclude_node_types: held } : {};
}
