import { Layer } from '@strata/domain/records';

/** A node a layer pass found in a chunk, before deduplication against the graph. */
export interface ExtractedNode {
  node_type: string;
  label: string;
  props: Record<string, unknown>;
  /** the chunk text the node was read from (anchored into the chunk when found there) */
  quote: string;
  confidence: number;
  /** the label's matching normalisation (§4.2), when the extractor already computed it */
  norm?: string;
}

/** One layer pass over one chunk: the nodes it found, or why it failed (§9.3 `errors`). */
export type LayerOutcome = { layer: Layer; nodes: ExtractedNode[] } | { layer: Layer; error: string };

/** What the request says about the material, guiding attribution (REFERENCE §9.3). */
export interface ExtractionContext {
  title?: string;
  participants?: { name: string; organization?: string; role?: string }[];
  occurred_at?: string;
  context?: string;
}

export interface ChunkExtractionInput {
  content: string;
  layers: readonly Layer[];
  context?: ExtractionContext;
  signal?: AbortSignal;
}

/**
 * Turns a chunk into candidate nodes, one pass per layer. `method` is what the ExtractedFrom
 * edges record (REFERENCE §9.2, §9.6): `"offline"` for the in-process extractor, `"llm"` for a
 * model. A failing pass is an outcome with `error`, never a throw: the other passes stand.
 */
export interface Extractor {
  readonly method: 'offline' | 'llm';
  extract(input: ChunkExtractionInput): Promise<LayerOutcome[]>;
}

/** Every extracted node carries this confidence under the offline provider (REFERENCE §9.6). */
export const OFFLINE_CONFIDENCE = 0.6;
