import { decideCreateEdge, decideCreateNode, decideUpdateNode, triggerEdgeProps, GraphChanges } from '@strata/domain/graph';
import { EXTRACTION_REASON, PageOffset, pageAt } from '@strata/domain/ingestion';
import { NodeRecord } from '@strata/domain/records';
import { ChunkAnchors, ExtractedNode, LayerOutcome } from '@strata/extraction';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { DedupIndex } from './dedup-index';

export interface ChunkExtractionCounts {
  nodes_created: number;
  nodes_deduplicated: number;
  edges_created: number;
  extracted_node_uids: string[];
}

export interface ExtractionPlacement {
  /** the chunk's content, where quotes are anchored */
  content: string;
  method: 'offline' | 'llm';
  /** the chunk's first byte in its document, and the document's page map (for page numbers) */
  chunkStart?: number | null;
  pages?: readonly PageOffset[];
  /** what deduplication compares with: the unit's index over the job's cache */
  dedup: DedupIndex;
  /** the ontology pass's writes for this chunk (REFERENCE §9.1 `ontology`), staged before the chunk completes */
  ontology?: (chunk: NodeRecord, locate: (names: readonly string[]) => string | undefined) => Promise<{ nodes_created: number; edges_created: number; node_uids: string[] }>;
  /**
   * A chunk new to the graph: stages its creation (with its ChunkOf edge) and returns it. Called
   * once the extracted nodes are placed, with the chunk's final props (`completed`, its
   * extraction count), so the chunk is written once; with null when the ontology pass will
   * still cite it, and the chunk then completes by an update at the end.
   */
  create?: (final: { processing_status: 'completed'; extraction_count: number } | null) => NodeRecord;
}

/**
 * Stages one chunk's extraction on its unit of work (REFERENCE §9.2): each extracted node is
 * reused (exact or ≥ 0.9 match) or created (with a PossibleDuplicate to a 0.7–0.9 match), and
 * linked to the chunk by ExtractedFrom {method, confidence, location}, the location being the
 * quote's text selector (UTF-8 bytes of the chunk, with pages when the document has a map).
 * Finally the chunk is marked `completed` with its extraction count; a chunk created by this
 * unit (`create`) is written with that status at once: a Chunk holds its whole text, and a
 * second version of it rewrote that text in the log, the graph, the full-text and the vector
 * index for one status word.
 */
export async function stageExtraction(tx: GraphTx, existing: NodeRecord | null, outcomes: readonly LayerOutcome[], place: ExtractionPlacement): Promise<ChunkExtractionCounts> {
  const counts: ChunkExtractionCounts = { nodes_created: 0, nodes_deduplicated: 0, edges_created: 0, extracted_node_uids: [] };
  const dedup = place.dedup;
  const anchors = new ChunkAnchors(place.content);
  const linked = new Set<string>();
  const cited: { node: NodeRecord; x: ExtractedNode }[] = [];
  for (const o of outcomes) {
    if (!('nodes' in o)) continue;
    for (const x of o.nodes) {
      const node = await placeNode(tx, dedup, x, counts);
      if (linked.has(node.uid)) continue; // one provenance edge per node and chunk
      linked.add(node.uid);
      counts.extracted_node_uids.push(node.uid);
      cited.push({ node, x });
    }
  }
  const completedAtOnce = place.create !== undefined && !place.ontology;
  const chunk = place.create ? place.create(completedAtOnce ? { processing_status: 'completed', extraction_count: linked.size } : null) : existing;
  if (!chunk) throw new Error('an extraction needs its chunk: an existing one or `create`');
  for (const { node, x } of cited) {
    const props = triggerEdgeProps('ExtractedFrom', { method: place.method, confidence: x.confidence, ...location(x, place, anchors) });
    tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'ExtractedFrom', confidence: x.confidence, props }, node, chunk, tx.uuid(), tx.write)));
    counts.edges_created++;
  }
  if (place.ontology) {
    const o = await place.ontology(chunk, (names) => names.map((n) => location({ quote: n }, place, anchors).location).find((l) => l !== undefined));
    counts.nodes_created += o.nodes_created;
    counts.edges_created += o.edges_created;
    for (const uid of o.node_uids) {
      if (linked.has(uid)) continue;
      linked.add(uid);
      counts.extracted_node_uids.push(uid);
    }
  }
  if (!completedAtOnce) {
    const done = decideUpdateNode(chunk, { props: { processing_status: 'completed', extraction_count: linked.size } }, tx.write);
    tx.emit(GraphChanges.nodeChanged(tx.org, 'NodeUpdated', done, null));
  }
  return counts;
}

async function placeNode(tx: GraphTx, dedup: DedupIndex, x: ExtractedNode, counts: ChunkExtractionCounts): Promise<NodeRecord> {
  const decision = await dedup.decide(x.node_type, x.label, x.norm);
  if (decision.action === 'reuse') {
    const existing = await dedup.read(tx, decision.uid);
    if (existing && existing.tombstone_at === null) {
      counts.nodes_deduplicated++;
      return existing;
    }
  }
  const node = decideCreateNode({ node_type: x.node_type, label: x.label, props: x.props, confidence: x.confidence }, tx.uuid(), tx.write);
  // marked as ingestion's own: deleting its document removes it, unlike a reused node (§9.3)
  tx.emit(GraphChanges.nodeCreated(tx.org, node, EXTRACTION_REASON));
  dedup.added(node, decision.norm);
  counts.nodes_created++;
  if (decision.action === 'create' && decision.possible_duplicate) {
    const other = await tx.node(decision.possible_duplicate.uid);
    if (other && other.tombstone_at === null) {
      const props = triggerEdgeProps('PossibleDuplicate', { similarity: decision.possible_duplicate.similarity, method: 'fuzzy', status: 'pending', detected_at: tx.now });
      tx.emit(GraphChanges.edgeCreated(tx.org, decideCreateEdge({ edge_type: 'PossibleDuplicate', props }, node, other, tx.uuid(), tx.write)));
      counts.edges_created++;
    }
  }
  return node;
}

function location(x: Pick<ExtractedNode, 'quote'>, place: ExtractionPlacement, anchors: ChunkAnchors): { location?: string } {
  const anchor = anchors.anchor(x.quote);
  if (!anchor) return {};
  const sel: Record<string, unknown> = { ...anchor };
  if (place.pages?.length && place.chunkStart !== undefined && place.chunkStart !== null) {
    sel.page_start = pageAt(place.pages, place.chunkStart + anchor.start);
    sel.page_end = pageAt(place.pages, place.chunkStart + Math.max(anchor.start, anchor.end - 1));
  }
  return { location: JSON.stringify(sel) };
}
