import { FixedClock } from '@strata/domain/time';
import { api, createApiKey } from '../support/http';
import { IngestedDocument, createProject, ingestDocument, pageMapOf } from '../support/ingested-corpus';
import { RetrievalFixture, expectError, link, mk, newOrg, startRetrieval } from './retrieval-fixture';

/** 2026-06-01T00:00:00Z: the service's "now" for validity */
const NOW = 1_780_272_000;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('POST /retrieve/context (REFERENCE §9.5)', () => {
  const clock = new FixedClock(NOW);
  let f: RetrievalFixture;
  let project: string;
  let other: string;
  let survey: IngestedDocument;
  let notes: IngestedDocument;
  const u: Record<string, string> = {};
  const ctx = (body: Record<string, unknown>) => f.w.post('/retrieve/context', body);
  const node = (r: any, uid: string) => r.body.graph.nodes.find((n: any) => n.uid === uid);

  const C0 = 'Zoë Park observed that honeybees pollinate almond orchards in the Central Valley.';
  const C1 = 'Wild bumblebees also visit almond blossoms. Almond yields rose by 12 percent.';
  const C2 = 'Appendix: orchard maps and sampling plots.';

  beforeAll(async () => {
    f = await startRetrieval({ clock });
    project = await createProject(f.w, 'Pollination study');
    other = await createProject(f.w, 'Other study');
    u.session = await mk(f.w, 'Session', 'Grower call', { props: { started_at: NOW - 86_400, ended_at: NOW - 86_000 } });
    survey = await ingestDocument(f.w, {
      title: 'Bee survey',
      chunks: [C0, C1, C2],
      page_offsets: pageMapOf([C0, C1, C2], [1, 2, 2]),
      project_uid: project,
      extracted: [
        { node_type: 'Person', label: 'Zoë Park', chunk: 0 },
        { ref: 'honeybees', node_type: 'Claim', label: 'Honeybees pollinate almond orchards', quote: 'honeybees pollinate almond orchards', chunk: 0 },
        { ref: 'yields', node_type: 'Claim', label: 'Almond yields rose by 12 percent', chunk: 1 },
        // no selector: anchored by the first occurrence of its label
        { ref: 'bumblebees', node_type: 'Concept', label: 'bumblebees', chunk: 1, anchored: false },
        // no selector, and its label is nowhere in the chunk
        { ref: 'decline', node_type: 'Hypothesis', label: 'Pollinator decline threatens almonds', chunk: 1, anchored: false },
      ],
    });
    Object.assign(u, survey.nodes);
    notes = await ingestDocument(f.w, {
      title: 'Grower call notes',
      document_type: 'transcript',
      chunks: ['Growers rented honeybees for the almond bloom this spring.'],
      occurred_at: '2026-03-02',
      session_uid: u.session,
      project_uid: other,
      extracted: [{ ref: 'rented', node_type: 'Claim', label: 'Growers rented honeybees for the almond bloom', chunk: 0 }],
    });
    u.rented = notes.nodes.rented;
    u.agent = await mk(f.w, 'Agent', 'Research agent');
    u.evidence = await mk(f.w, 'Evidence', 'Field survey of pollinator visits');
    u.newer = await mk(f.w, 'Claim', 'Honeybees and wind pollinate almond orchards');
    u.rule = await mk(f.w, 'Regulation', 'Almond hive rental rule', { props: { valid_from: '2026-01', valid_until: '2026-12-31' } });
    u.oldRule = await mk(f.w, 'Regulation', 'Almond hive permit rule', { props: { valid_until: '2025' } });
    u.gone = await mk(f.w, 'Claim', 'Honeybees pollinate almond orchards at night');
    await f.w.delete(`/node/${u.gone}`);
    u.supports = await link(f.w, u.evidence, u.honeybees, 'Supports', { weight: 0.9 });
    await link(f.w, u.honeybees, u.agent, 'BelievedBy', { props: { confidence: 0.7 } });
    await link(f.w, u.newer, u.honeybees, 'Supersedes');
    u.article = await mk(f.w, 'Article', 'Almond pollination explained', {
      props: { content: 'Almond orchards depend on honeybees.', article_type: 'synthesis', questions: ['Who pollinates almonds?'] },
    });
    await link(f.w, u.article, u.honeybees, 'Covers', { props: { coverage: 'primary' } });
    await link(f.w, u.article, project, 'PartOfProject');
    u.otherArticle = await mk(f.w, 'Article', 'Almond markets', { props: { content: 'Almond prices.', covers_uid: u.yields } });
  }, 60_000);
  afterAll(() => f.close());

  it('defaults: 10 nodes, 3 articles, no chunks, the graph, hybrid ranking when embeddings exist', async () => {
    const r = await ctx({ query: 'almond' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ query: 'almond', mode: 'hybrid', chunks: [] });
    expect(r.body.graph.nodes.length).toBeGreaterThan(3);
    expect(r.body.graph.nodes.length).toBeLessThanOrEqual(10);
    expect(r.body.articles.map((a: any) => a.uid).sort()).toEqual([u.article, u.otherArticle].sort());
    for (const n of r.body.graph.nodes) {
      expect(n.retrieval).toEqual({ via: 'direct', score: expect.any(Number), depth: 0, path_cost: 0 });
      // Documents, Chunks, Articles are not graph nodes of the context; tombstoned nodes never are
      expect(['Document', 'Chunk']).not.toContain(n.node_type);
      expect(n.uid).not.toBe(u.gone);
    }
    const scores = r.body.graph.nodes.map((n: any) => n.retrieval.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('ranks direct hits and articles exactly as /retrieve hybrid ranks them: same nodes, order and scores', async () => {
    const page = async (body: Record<string, unknown>) => {
      const r = await f.w.post('/retrieve', { action: 'hybrid', ...body });
      expect(r.status).toBe(200);
      return r.body.map((x: any) => [x.uid ?? x.node?.uid, x.score]);
    };
    const bodies = [
      { query: 'almond' },
      { query: 'honeybees pollinate almond orchards', node_limit: 12, article_limit: 1 },
      { query: 'almond hive rule bumblebees yields', article_limit: 5, node_limit: 4 },
      { query: 'pollinator decline growers rented', node_types: ['Claim', 'Hypothesis'], layer: 'epistemic', article_limit: 2 },
    ];
    for (const body of bodies) {
      const r = await ctx({ ...body, graph_expansion_limit: 0 });
      expect(r.status).toBe(200);
      const { query, node_types, layer } = body as { query: string; node_types?: string[]; layer?: string };
      const direct = r.body.graph.nodes.map((n: any) => [n.uid, n.retrieval.score]);
      expect(direct).toEqual(await page({ query, node_types, layer, k: (body as { node_limit?: number }).node_limit ?? 10 }));
      expect(direct.length).toBeGreaterThan(0);
      const articles = r.body.articles.map((a: any) => [a.uid, a.score]);
      expect(articles).toEqual(await page({ query, node_types: ['Article'], k: (body as { article_limit?: number }).article_limit ?? 3 }));
    }
  });

  it('an organization without live Articles or Chunks answers none, and ranks the first ones as soon as they exist', async () => {
    const o = await newOrg(f.app);
    const c = (body: Record<string, unknown>) => o.w.post('/retrieve/context', body);
    await mk(o.w, 'Concept', 'Almond orchards');
    const gone = await mk(o.w, 'Article', 'Almond orchards retired');
    await o.w.delete(`/node/${gone}`);
    const none = await c({ query: 'almond orchards', chunk_limit: 5 });
    expect(none.status).toBe(200);
    expect(none.body.articles).toEqual([]);
    expect(none.body.chunks).toEqual([]);
    expect(none.body.graph.nodes.length).toBe(1);
    const article = await mk(o.w, 'Article', 'Almond orchards explained', { props: { content: 'Orchards need bees.' } });
    const doc = await ingestDocument(o.w, { title: 'Orchard notes', chunks: ['Almond orchards bloom in February.'] });
    const some = await c({ query: 'almond orchards', chunk_limit: 5 });
    expect(some.body.articles.map((x: any) => x.uid)).toEqual([article]);
    expect(some.body.chunks).toEqual([
      { chunk_uid: doc.chunk_uids[0], content: 'Almond orchards bloom in February.', score: expect.any(Number), document_uid: doc.document_uid, document_title: 'Orchard notes', chunk_index: 0 },
    ]);
  });

  it('annotates provenance: source documents, anchored source chunks with byte offsets and 1-based pages', async () => {
    const r = await ctx({ query: 'honeybees pollinate almond orchards', node_types: ['Claim'], article_limit: 0 });
    const claim = node(r, u.honeybees);
    expect(claim.source_documents).toEqual([{ uid: survey.document_uid, title: 'Bee survey' }]);
    const at = bytes('Zoë Park observed that ');
    expect(claim.source_chunks).toEqual([
      {
        chunk_uid: survey.chunk_uids[0],
        char_start: at,
        char_end: at + bytes('honeybees pollinate almond orchards'),
        page_start: 1,
        page_end: 1,
        quote: 'honeybees pollinate almond orchards',
        anchor: { exact: 'honeybees pollinate almond orchards', prefix: expect.any(String), suffix: expect.any(String), start: at, end: at + bytes('honeybees pollinate almond orchards') },
      },
    ]);
    const yields = (await ctx({ query: 'almond yields percent', node_types: ['Claim'], article_limit: 0 })).body.graph.nodes.find((n: any) => n.uid === u.yields);
    expect(yields.source_chunks[0]).toMatchObject({ chunk_uid: survey.chunk_uids[1], page_start: 2, page_end: 2, quote: 'Almond yields rose by 12 percent' });
    // the transcript's document: occurred_at, no page map → null pages
    const rented = node(await ctx({ query: 'growers rented honeybees', node_types: ['Claim'], article_limit: 0 }), u.rented);
    expect(rented.source_documents).toEqual([{ uid: notes.document_uid, title: 'Grower call notes', occurred_at: '2026-03-02' }]);
    expect(rented.source_chunks[0]).toMatchObject({ chunk_uid: notes.chunk_uids[0], char_start: 0, page_start: null, page_end: null });
  });

  it('a node extracted from several chunks lists each chunk in listEdges order (oldest, then uid) and its Documents as /retrieve include_sources traces them', async () => {
    const o = await newOrg(f.app);
    const docs = [
      await ingestDocument(o.w, {
        title: 'Orchard log',
        chunks: ['Quokka orchards bloom early.', 'The quokka grove was watered.'],
        extracted: [{ ref: 'grove', node_type: 'Concept', label: 'quokka grove', quote: 'quokka', chunk: 1 }],
      }),
    ];
    const grove = docs[0].nodes.grove;
    for (const title of ['Grove report', 'Orchard log, second part'])
      docs.push(await ingestDocument(o.w, { title, chunks: [`${title}: the quokka grove.`], extracted: [{ ref: 'grove', node_type: 'Concept', label: 'quokka grove', uid: grove, chunk: 0 }] }));
    const plain = await mk(o.w, 'Concept', 'quokka notes');
    const r = await o.w.post('/retrieve/context', { query: 'quokka grove notes', article_limit: 0 });
    expect(r.status).toBe(200);
    const nodes = new Map<string, any>(r.body.graph.nodes.map((n: any) => [n.uid, n]));
    expect(nodes.get(plain)).not.toHaveProperty('source_documents');
    expect(nodes.get(plain)).not.toHaveProperty('source_chunks');
    // one clock reading for every edge here: equal creation times, so edge uid order
    const extractions = docs.map((d, i) => ({ edge: d.extracted_edges.grove, chunk: i === 0 ? d.chunk_uids[1] : d.chunk_uids[0] })).sort((a, b) => (a.edge < b.edge ? -1 : 1));
    expect(nodes.get(grove).source_chunks.map((c: any) => c.chunk_uid)).toEqual(extractions.map((x) => x.chunk));
    expect(nodes.get(grove).source_documents.map((d: any) => d.uid)).toEqual(docs.map((d) => d.document_uid).sort());
    const traced = await o.w.post('/retrieve', { action: 'hybrid', query: 'quokka grove notes', include_sources: true });
    expect(traced.body.map((t: any) => t.node.uid)).toEqual(expect.arrayContaining([grove, plain]));
    for (const t of traced.body) if (nodes.has(t.node.uid)) expect(nodes.get(t.node.uid).source_documents ?? []).toEqual(t.node.source_documents);
  });

  it('an extraction without a selector is anchored by its label, else it is unanchored', async () => {
    const r = await ctx({ query: 'bumblebees pollinator decline', node_types: ['Concept', 'Hypothesis'], article_limit: 0 });
    const at = bytes('Wild ');
    expect(node(r, u.bumblebees).source_chunks).toEqual([
      { chunk_uid: survey.chunk_uids[1], char_start: at, char_end: at + bytes('bumblebees'), page_start: 2, page_end: 2, quote: 'bumblebees', anchor: null },
    ]);
    expect(node(r, u.decline).source_chunks).toEqual([
      { chunk_uid: survey.chunk_uids[1], char_start: null, char_end: null, page_start: null, page_end: null, quote: null, anchor: null },
    ]);
  });

  it('belief, supersession and validity: now (the service clock) or at valid_at', async () => {
    const r = await ctx({ query: 'honeybees almond orchards', node_types: ['Claim'], article_limit: 0 });
    expect(node(r, u.honeybees)).toMatchObject({
      believed_by: [{ agent_uid: u.agent, agent_label: 'Research agent', confidence: 0.7 }],
      superseded: true,
      superseded_by: [u.newer],
    });
    const newer = node(r, u.newer);
    expect(newer.believed_by).toEqual([]);
    expect(newer.superseded).toBeUndefined();
    expect(newer.source_documents).toBeUndefined();
    expect(newer.currently_valid).toBeUndefined();

    const rules = await ctx({ query: 'almond hive rule', node_types: ['Regulation'], article_limit: 0 });
    expect(node(rules, u.rule)).toMatchObject({ currently_valid: true });
    expect(node(rules, u.oldRule)).toMatchObject({ currently_valid: false });
    expect(node(rules, u.rule).valid_at_time).toBeUndefined();
    const then = await ctx({ query: 'almond hive rule', node_types: ['Regulation'], article_limit: 0, valid_at: '2025-06' });
    expect(node(then, u.rule)).toMatchObject({ valid_at_time: false });
    expect(node(then, u.oldRule)).toMatchObject({ valid_at_time: true });
    expect(node(then, u.rule).currently_valid).toBeUndefined();
    clock.set(NOW + 365 * 86_400);
    try {
      expect(node(await ctx({ query: 'almond hive rule', node_types: ['Regulation'], article_limit: 0 }), u.rule).currently_valid).toBe(false);
    } finally {
      clock.set(NOW);
    }
  });

  it('graph expansion: reserved slots, cheapest path first, depth and path cost; filters apply before it', async () => {
    const body = { query: 'honeybees pollinate almond orchards', node_types: ['Claim'], layer: 'epistemic', article_limit: 0, node_limit: 3, graph_expansion_limit: 1 };
    const r = await ctx(body);
    const nodes = r.body.graph.nodes;
    expect(nodes.map((n: any) => n.retrieval.via)).toEqual(['direct', 'direct', 'expansion']);
    for (const n of nodes.slice(0, 2)) expect(n.node_type).toBe('Claim');
    // the Evidence is no Claim: only expansion reaches it, over Supports (weight 0.9 → cost −ln 0.9)
    expect(nodes[2]).toMatchObject({ uid: u.evidence, retrieval: { via: 'expansion', score: null, depth: 1 } });
    expect(nodes[2].retrieval.path_cost).toBeCloseTo(-Math.log(0.9), 10);
    // live edges among the returned nodes, and only those
    const among = new Set(nodes.map((n: any) => n.uid));
    expect(r.body.graph.edges.map((e: any) => e.uid)).toContain(u.supports);
    for (const e of r.body.graph.edges) {
      expect(among.has(e.from_uid) && among.has(e.to_uid)).toBe(true);
      expect(e.tombstone_at).toBeNull();
    }
    // depth 0: direct hits only, the reserved slot goes back to the ranking
    const flat = await ctx({ ...body, graph_max_depth: 0 });
    expect(flat.body.graph.nodes.map((n: any) => n.retrieval.via)).toEqual(['direct', 'direct', 'direct']);
    // include_graph false: no expansion and no edges
    const bare = await ctx({ ...body, include_graph: false });
    expect(bare.body.graph.nodes.every((n: any) => n.retrieval.via === 'direct')).toBe(true);
    expect(bare.body.graph.edges).toEqual([]);
    // at most 4 hops: more is held to 4
    expect((await ctx({ ...body, graph_max_depth: 9 })).body.graph.nodes).toEqual(r.body.graph.nodes);
    // a tombstoned edge is neither followed nor returned
    await f.w.delete(`/edge/${u.supports}`);
    try {
      const after = await ctx(body);
      expect(after.body.graph.nodes.map((n: any) => n.uid)).not.toContain(u.evidence);
      expect(after.body.graph.edges.map((e: any) => e.uid)).not.toContain(u.supports);
    } finally {
      expect((await f.w.post('/evolve', { action: 'restore_edge', uid: u.supports })).status).toBe(200);
    }
  });

  it('articles: ranked, with type, covered subject (Covers edge or props) and questions; 0 skips them', async () => {
    const r = await ctx({ query: 'almond pollination honeybees', article_limit: 1 });
    expect(r.body.articles).toEqual([
      { uid: u.article, label: 'Almond pollination explained', content: 'Almond orchards depend on honeybees.', article_type: 'synthesis', covers_uid: u.honeybees, questions: ['Who pollinates almonds?'], score: expect.any(Number) },
    ]);
    const markets = (await ctx({ query: 'almond markets prices', article_limit: 3 })).body.articles.find((a: any) => a.uid === u.otherArticle);
    expect(markets).toMatchObject({ covers_uid: u.yields, article_type: null, questions: [] });
    expect((await ctx({ query: 'almond', article_limit: 0 })).body.articles).toEqual([]);
  });

  it('raw chunks when chunk_limit > 0, with their documents', async () => {
    const r = await ctx({ query: 'bumblebees blossoms', chunk_limit: 2, article_limit: 0 });
    expect(r.body.chunks[0]).toEqual({ chunk_uid: survey.chunk_uids[1], content: C1, score: expect.any(Number), document_uid: survey.document_uid, document_title: 'Bee survey', chunk_index: 1 });
    expect(r.body.chunks.length).toBeLessThanOrEqual(2);
  });

  it('project_uid confines nodes, chunks and expansion to the Project’s admitted sources; articles to its own', async () => {
    const r = await ctx({ query: 'honeybees almond', project_uid: project, chunk_limit: 5, graph_expansion_limit: 2 });
    const uids = r.body.graph.nodes.map((n: any) => n.uid);
    expect(uids).toContain(u.honeybees);
    for (const x of [u.rented, u.newer, u.evidence, u.agent, u.rule]) expect(uids).not.toContain(x);
    for (const c of r.body.chunks) expect(survey.chunk_uids).toContain(c.chunk_uid);
    expect(r.body.articles.map((a: any) => a.uid)).toEqual([u.article]);
    // supersession and belief by nodes outside the Project are not named
    expect(node(r, u.honeybees).superseded).toBeUndefined();
    expect(node(r, u.honeybees).believed_by).toEqual([]);
    const o = await ctx({ query: 'honeybees almond', project_uid: other, chunk_limit: 5 });
    expect(o.body.graph.nodes.map((n: any) => n.uid)).toEqual([u.rented]);
    expect(o.body.articles).toEqual([]);
  });

  it('a Project-scoped key sees only what its Project admits', async () => {
    const key = await createApiKey(f.app.url, f.jwt, { scopes: ['read'], project_uids: [other], name: 'other only' });
    const scoped = api(f.app.url, key.key);
    const r = await scoped.post('/retrieve/context', { query: 'honeybees almond', chunk_limit: 5, graph_expansion_limit: 3 });
    expect(r.status).toBe(200);
    // the Project itself and what it admits, nothing else
    const seen = r.body.graph.nodes.map((n: any) => n.uid);
    expect(seen).toContain(u.rented);
    for (const uid of seen) expect([u.rented, other]).toContain(uid);
    expect(r.body.chunks.map((c: any) => c.chunk_uid)).toEqual([notes.chunk_uids[0]]);
    expect(r.body.articles).toEqual([]);
    expect(node(r, u.rented).source_documents).toEqual([{ uid: notes.document_uid, title: 'Grower call notes', occurred_at: '2026-03-02' }]);
    // a Project outside its scope does not exist for it
    expectError(await scoped.post('/retrieve/context', { query: 'x', project_uid: project }), 404, 'not_found', 'project_uid');
  });

  it('min_similarity drops weak direct hits', async () => {
    const all = await ctx({ query: 'honeybees', article_limit: 0 });
    expect(all.body.graph.nodes.length).toBeGreaterThan(0);
    expect((await ctx({ query: 'honeybees', article_limit: 0, min_similarity: 1 })).body.graph.nodes).toEqual([]);
  });

  it('validates every field (400, nothing else)', async () => {
    expectError(await ctx({}), 400, 'missing_field', 'query');
    expectError(await ctx({ query: '   ' }), 400, 'missing_field', 'query');
    expectError(await ctx({ query: 7 }), 400, 'invalid_field', 'query');
    for (const field of ['node_limit', 'article_limit', 'chunk_limit', 'graph_expansion_limit', 'graph_max_depth'])
      for (const bad of [-1, 1.5, '2', true]) expectError(await ctx({ query: 'x', [field]: bad }), 400, 'invalid_field', field);
    for (const bad of [-0.1, 1.5, 'high']) expectError(await ctx({ query: 'x', min_similarity: bad }), 400, 'invalid_field', 'min_similarity');
    expectError(await ctx({ query: 'x', include_graph: 'no' }), 400, 'invalid_field', 'include_graph');
    expectError(await ctx({ query: 'x', node_types: ['not a type!'] }), 400, 'invalid_field', 'node_types');
    expectError(await ctx({ query: 'x', layer: 'astral' }), 400, 'invalid_field', 'layer');
    for (const bad of ['yesterday', '2026-02-30', 20260101]) expectError(await ctx({ query: 'x', valid_at: bad }), 400, 'invalid_field', 'valid_at');
    expectError(await ctx({ query: 'x', project_uid: 'bad uid!' }), 400, 'invalid_uid', 'project_uid');
    expectError(await ctx({ query: 'x', project_uid: 'no-such-project' }), 404, 'not_found', 'project_uid');
    const wrong = await ctx({ query: 'x', project_uid: u.evidence });
    expectError(wrong, 400, 'wrong_node_type', 'project_uid');
    expect(wrong.body.expected).toEqual(['Project']);
    expect((await f.w.post('/retrieve/context', undefined, { raw: '[1]' })).body.code).toBe('invalid_json');
    // limits above their maximum are clamped; null counts as omitted
    expect((await ctx({ query: 'almond', node_limit: 5000, article_limit: 5000, chunk_limit: 5000, graph_max_depth: null })).status).toBe(200);
    // reads only: a read-only key may ask
    expect((await f.ro.post('/retrieve/context', { query: 'almond' })).status).toBe(200);
  });

  it('answers in text mode without embeddings', async () => {
    const off = await startRetrieval({ embeddingProvider: 'none', clock });
    try {
      const doc = await ingestDocument(off.w, { title: 'Hive notes', chunks: ['Honeybees pollinate almond orchards.'], extracted: [{ node_type: 'Claim', label: 'Honeybees pollinate almond orchards', chunk: 0 }] });
      const r = await off.w.post('/retrieve/context', { query: 'honeybees', chunk_limit: 1 });
      expect(r.body.mode).toBe('text');
      expect(r.body.graph.nodes.map((n: any) => n.uid)).toEqual([doc.nodes['Honeybees pollinate almond orchards']]);
      expect(r.body.chunks.map((c: any) => c.chunk_uid)).toEqual(doc.chunk_uids);
    } finally {
      await off.close();
    }
  });
});
