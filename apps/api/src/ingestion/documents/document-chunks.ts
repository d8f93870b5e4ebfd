import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';

/** The live Chunks of a document (ChunkOf → it), by chunk index. */
export async function documentChunks(graph: GraphReadModel, org: string, documentUid: string): Promise<NodeRecord[]> {
  const edges = await graph.listEdges(org, { to_uid: documentUid, edge_types: ['ChunkOf'] });
  const nodes = await graph.getNodes(org, edges.map((e) => e.from_uid));
  return [...nodes.values()]
    .filter((n) => n.tombstone_at === null && n.node_type === 'Chunk')
    .sort((a, b) => Number(a.props.chunk_index) - Number(b.props.chunk_index));
}

export const chunkStatus = (c: NodeRecord): string => String(c.props.processing_status ?? 'pending');
