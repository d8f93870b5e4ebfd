import { Streams } from '@strata/domain/events';
import { NodeOrigin, documentOfChunkReason } from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { EventStore } from '@strata/event-store/event-store.port';
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

/**
 * The Documents a chunk was created for: the targets of its ChunkOf edges, tombstoned ones too
 * (tombstoning a Document cascades to them), else the one its creation names (a purge of the
 * Document removes the edge). Empty for a chunk ingested without a document.
 */
export async function documentsOfChunk(graph: GraphReadModel, events: EventStore, org: string, chunkUid: string): Promise<string[]> {
  const parents = (await graph.listEdges(org, { from_uid: chunkUid, edge_types: ['ChunkOf'], include_tombstoned: true })).map((e) => e.to_uid);
  if (parents.length) return parents;
  const named = documentOfChunkReason((await originOf(events, Streams.node(org, chunkUid)))?.reason);
  return named ? [named] : [];
}

/** What a node's or edge's first event says of it: the reason it was written with and the request (null: no such stream). */
export async function originOf(events: EventStore, stream: string): Promise<NodeOrigin | null> {
  const [first] = await events.readStream(stream, 0, 1);
  if (!first) return null;
  const data = first.data as { reason?: unknown };
  return { reason: typeof data.reason === 'string' ? data.reason : null, request_id: first.metadata.request_id };
}
