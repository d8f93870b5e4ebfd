import { parentPort } from 'node:worker_threads';
import { LexicalEmbedder } from '@strata/ai/embeddings/lexical-embedder';
import { decideCreateNode } from '@strata/domain/graph';
import { embeddingTextOf } from '@strata/domain/retrieval/embedding-text';
import type { LayerOutcome, VectorsAhead } from '@strata/extraction/extractor.port';
import { OfflineExtractor } from '@strata/extraction/offline/offline-extractor';
import type { OfflineReply, OfflineRequest, VectorsComputed } from './offline-extractor-thread';

// The offline extractor's rules, run on a thread of their own (offline-extractor-thread.ts),
// and the built-in vectors of what the chunk's commit will create.
const extractor = new OfflineExtractor();
const embedders = new Map<number, LexicalEmbedder>();
// only the label, summary and props of a node decide its embedded text, never who wrote it when
const WRITE = { now: 0, agent_id: null, principal_id: 'ahead' };

function textOf(body: { node_type: string; label: string; props: Record<string, unknown>; confidence?: number }): string | null {
  try {
    return embeddingTextOf(decideCreateNode(body, 'ahead', WRITE));
  } catch {
    return null; // a node its commit will refuse too
  }
}

/** The texts the commit will embed (the chunk completed, each extracted node as created) and their built-in vectors. */
function vectorsOf(outcomes: LayerOutcome[], ahead: VectorsAhead): VectorsComputed {
  const texts = new Set<string>();
  if (ahead.chunk) {
    const t = textOf({ node_type: 'Chunk', label: ahead.chunk.label, props: { ...ahead.chunk.props, processing_status: 'completed', extraction_count: 0 } });
    if (t !== null) texts.add(t);
  }
  for (const o of outcomes) {
    if (!('nodes' in o)) continue;
    for (const x of o.nodes) {
      const t = textOf({ node_type: x.node_type, label: x.label, props: x.props, confidence: x.confidence });
      if (t !== null) texts.add(t);
    }
  }
  const d = ahead.dimensions;
  let embedder = embedders.get(d);
  if (!embedder) embedders.set(d, (embedder = new LexicalEmbedder({ dimensions: d })));
  const list = [...texts];
  const data = new Float64Array(list.length * d);
  list.forEach((t, i) => data.set(embedder!.embedOne(t), i * d));
  return { dimensions: d, texts: list, data };
}

parentPort!.on('message', (m: OfflineRequest) => {
  extractor.extract({ content: m.content, layers: m.layers, context: m.context }).then(
    (outcomes) => {
      const vectors = m.vectorsAhead ? vectorsOf(outcomes, m.vectorsAhead) : undefined;
      parentPort!.postMessage({ id: m.id, outcomes, ...(vectors ? { vectors } : {}) } satisfies OfflineReply, vectors ? [vectors.data.buffer as ArrayBuffer] : []);
    },
    (err: unknown) => parentPort!.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies OfflineReply),
  );
});
