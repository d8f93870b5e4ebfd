import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';

/**
 * Whether the organization holds at least one live node of `nodeType` (one index probe). A
 * text ranking filtered to a type still walks every match of the query, however few of them
 * are of that type: a type the organization lacks (no Articles, no ingested Chunks yet) is
 * answered without it.
 */
export async function holdsLiveType(graph: GraphReadModel, org: string, nodeType: string): Promise<boolean> {
  return (await graph.listNodes(org, { node_types: [nodeType] }, { limit: 1, offset: 0 })).items.length > 0;
}
