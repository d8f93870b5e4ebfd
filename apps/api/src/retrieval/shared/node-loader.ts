import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { ReadScope } from '@strata/platform/scope/read-scope';

/** Live, in-scope nodes for ranked uids, in the given order (dropping anything else). */
export async function liveNodesInOrder(graph: GraphReadModel, scope: ReadScope, uids: string[]): Promise<NodeRecord[]> {
  if (!uids.length) return [];
  const found = await graph.getNodes(scope.org, uids);
  const out: NodeRecord[] = [];
  for (const u of uids) {
    const n = found.get(u);
    if (n && n.tombstone_at === null && scope.allows(u)) out.push(n);
  }
  return out;
}
