import { Api } from '../support/http';
import { ingestDocument } from '../support/ingested-corpus';
import { RetrievalFixture, mk, newOrg, startRetrieval, until } from './retrieval-fixture';

type Ranked = { node: { uid: string; salience: number; node_type: string }; score: number; legs?: { leg: string; rank: number; score: number }[] };

const WORDS = ['almond', 'orchard', 'honeybee', 'bloom', 'river', 'valley', 'grower', 'yield'];
const TYPES = ['Concept', 'Claim', 'Idea', 'Person'];

/**
 * REFERENCE §5.2 `hybrid`: the reciprocal rank fusion (k = 60) of the `text` and `semantic`
 * rankings, each read as a page of max(5·(offset + k), 50), then score, salience, uid. Each
 * expected answer here is worked out from the two plain rankings, so any shortcut the hybrid
 * path takes (what it reads, which filters it sends to the indexes) must give the same pages.
 */
describe('hybrid is the rank fusion of the text and semantic rankings', () => {
  let f: RetrievalFixture;
  let bare: Omit<RetrievalFixture, 'app' | 'close'>;

  const ranking = async (c: Api, body: Record<string, unknown>): Promise<Ranked[]> => {
    const r = await c.post('/retrieve', body);
    if (r.status !== 200) throw new Error(`${JSON.stringify(body)}: ${r.status} ${r.text}`);
    return r.body as Ranked[];
  };

  /** The fused page computed from the two legs, as §5.2 defines it. */
  const expectedHybrid = async (c: Api, q: Record<string, unknown>, k: number, offset: number) => {
    const size = Math.max(5 * (offset + k), 50);
    const text = await ranking(c, { ...q, action: 'text', limit: size });
    const vec = await ranking(c, { ...q, action: 'semantic', k: size });
    const fused = new Map<string, { node: Ranked['node']; score: number; legs: { leg: string; rank: number; score: number }[] }>();
    for (const [leg, hits] of [
      ['fts', text],
      ['vec', vec],
    ] as const)
      hits.forEach((h, i) => {
        const e = fused.get(h.node.uid) ?? { node: h.node, score: 0, legs: [] };
        e.score += 1 / (60 + i + 1);
        e.legs.push({ leg, rank: i + 1, score: h.score });
        fused.set(h.node.uid, e);
      });
    return [...fused.values()]
      .sort((a, b) => b.score - a.score || b.node.salience - a.node.salience || (a.node.uid < b.node.uid ? -1 : 1))
      .slice(offset, offset + k)
      .map((e) => ({ uid: e.node.uid, score: e.score, legs: e.legs }));
  };

  const actualHybrid = async (c: Api, q: Record<string, unknown>, k: number, offset: number) =>
    (await ranking(c, { ...q, action: 'hybrid', k, offset, explain: true })).map((r) => ({ uid: r.node.uid, score: r.score, legs: r.legs }));

  /** Nodes sharing a few words, in several types and saliences (equal fused scores are common). */
  const corpus = async (c: Api, n: number) => {
    for (let i = 0; i < n; i++) {
      const words = [WORDS[i % WORDS.length], WORDS[(i * 3 + 1) % WORDS.length], WORDS[(i * 5 + 2) % WORDS.length]];
      await mk(c, TYPES[i % TYPES.length], `${words.join(' ')} ${i % 7}`, { summary: `notes on ${words[0]} and ${words[2]}`, salience: [0.2, 0.5, 0.8][i % 3] });
    }
  };

  beforeAll(async () => {
    f = await startRetrieval();
    await corpus(f.w, 72);
    await ingestDocument(f.w, {
      title: 'Almond orchard survey',
      chunks: ['Honeybee visits to almond orchard blooms were counted.', 'Grower yield in the river valley rose.'],
      extracted: [{ node_type: 'Claim', label: 'Honeybee visits to almond orchard blooms', chunk: 0 }],
    });
    const gone = await mk(f.w, 'Concept', 'almond orchard honeybee gone');
    await f.w.delete(`/node/${gone}`);
    bare = await newOrg(f.app);
    await corpus(bare.w, 24);
    for (const c of [f.w, bare.w]) await until('every vector', async () => (await c.get('/stats')).body.embedding_index_backlog === 0);
  }, 120_000);
  afterAll(() => f.close());

  const queries: Record<string, unknown>[] = [
    { query: 'almond' },
    { query: 'almond orchard honeybee' },
    { query: 'river valley grower yield bloom' },
    { query: 'orchard', node_types: ['Claim', 'Idea'] },
    { query: 'almond honeybee', node_types: ['Document', 'Chunk'] },
    { query: 'the and of' },
  ];

  it('every k and offset, with and without Documents and Chunks in the organization', async () => {
    for (const c of [f.w, bare.w])
      for (const q of queries)
        for (const [k, offset] of [
          [10, 0],
          [3, 0],
          [5, 4],
          [12, 7],
        ]) {
          const want = await expectedHybrid(c, q, k, offset);
          expect({ q, k, offset, got: await actualHybrid(c, q, k, offset) }).toEqual({ q, k, offset, got: want });
        }
  });

  it('Documents and Chunks stay out of every default ranking unless named, before and after an organization first holds them', async () => {
    const { w } = await newOrg(f.app);
    await corpus(w, 16);
    const hidden = (rs: { node_type?: string; node?: { node_type: string } }[]) => rs.filter((r) => ['Document', 'Chunk'].includes(r.node?.node_type ?? r.node_type ?? ''));
    const check = async (named: number) => {
      for (const action of ['text', 'semantic', 'hybrid']) expect(hidden(await ranking(w, { action, query: 'almond orchard survey', k: 50, limit: 50 }))).toEqual([]);
      expect(hidden((await w.post('/search', { query: 'almond orchard survey' })).body)).toEqual([]);
      const ctx = (await w.post('/retrieve/context', { query: 'almond orchard survey', node_limit: 50 })).body;
      expect(hidden(ctx.graph.nodes)).toEqual([]);
      const asked = await ranking(w, { action: 'text', query: 'almond orchard survey', node_types: ['Document', 'Chunk'], limit: 50 });
      expect(asked).toHaveLength(named);
    };
    await check(0);
    const doc = await ingestDocument(w, { title: 'Almond orchard survey', chunks: ['Almond orchard survey notes.'] });
    await until('the Document vector', async () => (await w.get('/stats')).body.embedding_index_backlog === 0);
    await check(2);
    expect((await w.delete(`/node/${doc.chunk_uids[0]}`)).status).toBe(200);
    expect((await w.delete(`/node/${doc.document_uid}`)).status).toBe(200);
    await check(0);
  });
});

describe('hybrid without an embedding provider is the text ranking alone', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval({ embeddingProvider: 'none' });
    for (let i = 0; i < 40; i++) await mk(f.w, TYPES[i % TYPES.length], `${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]} ${i % 5}`, { salience: [0.2, 0.5, 0.8][i % 3] });
  }, 60_000);
  afterAll(() => f.close());

  it('every k and offset: the text page, each scored 1/(60 + its text rank), fts the only leg', async () => {
    for (const query of ['almond', 'orchard honeybee bloom', 'river 3'])
      for (const [k, offset] of [
        [10, 0],
        [1, 0],
        [4, 3],
        [15, 20],
      ]) {
        const text = (await f.w.post('/retrieve', { action: 'text', query, limit: k, offset })).body as Ranked[];
        const hybrid = (await f.w.post('/retrieve', { action: 'hybrid', query, k, offset, explain: true })).body as Ranked[];
        const want = text.map((t, i) => ({ uid: t.node.uid, score: 1 / (60 + offset + i + 1), legs: [{ leg: 'fts', rank: offset + i + 1, score: t.score }] }));
        expect({ query, k, offset, got: hybrid.map((h) => ({ uid: h.node.uid, score: h.score, legs: h.legs })) }).toEqual({ query, k, offset, got: want });
      }
  });
});
