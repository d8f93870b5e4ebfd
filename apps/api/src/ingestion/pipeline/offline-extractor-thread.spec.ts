import { LexicalEmbedder } from '@strata/ai/embeddings/lexical-embedder';
import { decideCreateNode } from '@strata/domain/graph';
import { embeddingTextOf } from '@strata/domain/retrieval/embedding-text';
import { LayerOutcome, OfflineExtractor } from '@strata/extraction';
import { PrecomputedVectors } from '@strata/platform/vectors/precomputed-vectors';
import { OfflineExtractorThread } from './offline-extractor-thread';

const LAYERS = ['reality', 'epistemic', 'intent', 'action', 'memory', 'agent'] as const;
const TEXTS = [
  'Ada Lovelace joined Acme Corporation in London on 12 March 1843. Revenue grew 12% in 2023.',
  'Will the analytical engine compute? We hypothesise that engines may think. Our goal is to build a parser.',
  'We decided to use TypeScript. I prefer green tea. Run the tests before merging. Grace Hopper met Ada Lovelace in Paris.',
];
const context = { title: 'Notes', participants: [{ name: 'Barbara Liskov' }] };

const inProcess = (content: string): Promise<LayerOutcome[]> => new OfflineExtractor().extract({ content, layers: [...LAYERS], context });

describe('OfflineExtractorThread', () => {
  let thread: OfflineExtractorThread;
  beforeEach(() => (thread = new OfflineExtractorThread()));
  afterEach(() => thread.close());

  it('gives every chunk the outcomes the in-process extractor gives, chunks asked at once answered each with its own', async () => {
    const answers = await Promise.all(TEXTS.map((content) => thread.extract({ content, layers: [...LAYERS], context })));
    for (let i = 0; i < TEXTS.length; i++) expect(answers[i]).toEqual(await inProcess(TEXTS[i]));
    // the participant named in the context is a Person, as in process
    expect(JSON.stringify(answers[0])).toContain('Ada Lovelace');
  });

  it('still answers the chunks it held when it is stopped meanwhile, and every chunk after, in process', async () => {
    const held = TEXTS.map((content) => thread.extract({ content, layers: [...LAYERS], context }));
    await thread.close();
    const after = await thread.extract({ content: TEXTS[2], layers: [...LAYERS], context });
    const answers = await Promise.all(held);
    for (let i = 0; i < TEXTS.length; i++) expect(answers[i]).toEqual(await inProcess(TEXTS[i]));
    expect(after).toEqual(await inProcess(TEXTS[2]));
  });

  it('asked for them, offers the built-in vector of the completed chunk and of every node it extracted, each the one the projection computes for that text', async () => {
    const ahead = new PrecomputedVectors();
    ahead.wanted = true;
    const withVectors = new OfflineExtractorThread(ahead);
    try {
      const chunk = { label: 'Notes · chunk 0', props: { content: TEXTS[0], chunk_type: 'document', chunk_index: 0, processing_status: 'pending' } };
      const outcomes = await withVectors.extract({ content: TEXTS[0], layers: [...LAYERS], context, vectorsAhead: { dimensions: 64, chunk } });
      const write = { now: 1, agent_id: 'agent-1', principal_id: 'p-1' };
      const texts = [embeddingTextOf(decideCreateNode({ node_type: 'Chunk', label: chunk.label, props: { ...chunk.props, processing_status: 'completed', extraction_count: 3 } }, 'c-1', write))];
      for (const o of outcomes) if ('nodes' in o) for (const x of o.nodes) texts.push(embeddingTextOf(decideCreateNode({ node_type: x.node_type, label: x.label, props: x.props, confidence: x.confidence }, 'n-1', write)));
      expect(texts.length).toBeGreaterThan(3);
      const embedder = new LexicalEmbedder({ dimensions: 64 });
      for (const t of new Set(texts)) expect(ahead.take(64, t)).toEqual(embedder.embedVector(t));
      expect(ahead.count).toBe(0);
    } finally {
      await withVectors.close();
    }
  });

  it('computes no vector when nothing in the process takes them', async () => {
    const ahead = new PrecomputedVectors();
    const unwanted = new OfflineExtractorThread(ahead);
    try {
      await unwanted.extract({ content: TEXTS[1], layers: [...LAYERS], vectorsAhead: { dimensions: 64 } });
      expect(ahead.count).toBe(0);
    } finally {
      await unwanted.close();
    }
  });
});
