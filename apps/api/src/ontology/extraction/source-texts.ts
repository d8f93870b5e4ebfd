import { NodeRecord } from '@strata/domain/records';
import { GraphReadModel } from '@strata/graph-store/graph-read-model.port';

export const SOURCE_TYPES = ['Document', 'Chunk'] as const;

/**
 * The text extraction reads from a source: a Chunk's content; a Document's title, abstract
 * and its chunks' contents in chunk order. Extraction links what it finds to the Chunk (or
 * to the Document when it has no chunks).
 */
export async function sourceTexts(graph: GraphReadModel, org: string, source: NodeRecord): Promise<{ uid: string; text: string }[]> {
  const props = source.props as unknown as Record<string, unknown>;
  if (source.node_type === 'Chunk') return [{ uid: source.uid, text: String(props.content ?? '') }];
  const edges = await graph.listEdges(org, { to_uid: source.uid, edge_types: ['ChunkOf'] });
  const chunks = await graph.getNodes(org, edges.map((e) => e.from_uid));
  const live = [...chunks.values()]
    .filter((c) => c.tombstone_at === null)
    .sort((a, b) => Number((a.props as unknown as Record<string, unknown>).chunk_index ?? 0) - Number((b.props as unknown as Record<string, unknown>).chunk_index ?? 0) || a.uid.localeCompare(b.uid));
  if (live.length) return live.map((c) => ({ uid: c.uid, text: String((c.props as unknown as Record<string, unknown>).content ?? '') }));
  const head = [source.label, props.abstract_text].filter((x) => typeof x === 'string' && x).join('. ');
  return [{ uid: source.uid, text: head }];
}
