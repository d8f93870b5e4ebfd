import { TickingClock } from '../support/ticking-clock';
import { expectError, link, mk, newOrg, startRetrieval, RetrievalFixture } from './retrieval-fixture';

const uids = (xs: any[]) => xs.map((x) => x.uid ?? x.node?.uid);

describe('POST /retrieve and the GET shortcuts', () => {
  /** the service's clock: each write later than the last, as on a real one; tests move it instead of waiting */
  const clock = new TickingClock();
  let f: RetrievalFixture;
  const u: Record<string, string> = {};
  const retrieve = (body: Record<string, unknown>) => f.w.post('/retrieve', body);

  beforeAll(async () => {
    f = await startRetrieval({ clock });
    u.goalLow = await mk(f.w, 'Goal', 'Low goal', { props: { priority: 'low' } });
    u.goalCrit = await mk(f.w, 'Goal', 'Critical goal', { props: { priority: 'critical', deadline: 2000 } });
    u.goalCritSoon = await mk(f.w, 'Goal', 'Critical soon', { props: { priority: 'critical', deadline: 1000 } });
    u.goalDone = await mk(f.w, 'Goal', 'Done goal', { props: { status: 'completed' } });
    u.q1 = await mk(f.w, 'Question', 'Why?', { props: { importance: 0.2 } });
    u.q2 = await mk(f.w, 'OpenQuestion', 'How?', { props: { importance: 0.9 } });
    u.qAnswered = await mk(f.w, 'Question', 'Answered', { props: { status: 'answered' } });
    u.weak1 = await mk(f.w, 'Claim', 'Weak one', { confidence: 0.3 });
    u.weak2 = await mk(f.w, 'Claim', 'Weaker one', { confidence: 0.1 });
    u.strong = await mk(f.w, 'Claim', 'Strong one', { confidence: 0.9 });
    u.ap1 = await mk(f.w, 'Approval', 'Deploy', { props: { status: 'pending', requested_at: 200 } });
    u.ap2 = await mk(f.w, 'Approval', 'Delete', { props: { status: 'pending', requested_at: 100 } });
    u.apDone = await mk(f.w, 'Approval', 'Old', { props: { status: 'approved' } });
    u.dOpen = await mk(f.w, 'Decision', 'Pick DB', { props: { status: 'open' } });
    u.dRev = await mk(f.w, 'Decision', 'Pick cloud', { props: { status: 'revisited' } });
    u.dDone = await mk(f.w, 'Decision', 'Pick name', { props: { status: 'decided' } });
    u.contra = await link(f.w, u.weak1, u.strong, 'Contradicts', { props: { description: 'cannot both hold', contradiction_type: 'logical' } });
    u.contraResolved = await link(f.w, u.weak2, u.strong, 'Contradicts', { props: { resolution_status: 'resolved' } });
    u.pd = await link(f.w, u.weak1, u.weak2, 'PossibleDuplicate', { props: { similarity: 0.85, method: 'fuzzy' } });
    u.pdLow = await link(f.w, u.q1, u.q2, 'PossibleDuplicate', { props: { similarity: 0.7, method: 'fuzzy' } });
    u.pref1 = await mk(f.w, 'Preference', 'Prefers dark mode', { salience: 0.9, props: { key: 'theme', value: 'dark' } });
    u.pref2 = await mk(f.w, 'Preference', 'Prefers metric units', { salience: 0.4, props: { key: 'units', value: 'metric' } });
    u.skill = await mk(f.w, 'Skill', 'Deploy skill');
  }, 60_000);
  afterAll(() => f.close());

  it('active_goals: active or unset status, by priority then deadline', async () => {
    const r = await retrieve({ action: 'active_goals' });
    expect(uids(r.body)).toEqual([u.goalCritSoon, u.goalCrit, u.goalLow]);
    expect((await retrieve({ action: 'active_goals', limit: 1 })).body).toHaveLength(1);
    expect(uids((await f.w.get('/goals')).body)).toEqual(uids(r.body));
  });

  it('open_questions: Question and OpenQuestion, importance first', async () => {
    const r = await retrieve({ action: 'open_questions' });
    expect(uids(r.body)).toEqual([u.q2, u.q1]);
    expect(uids((await f.w.get('/questions')).body)).toEqual([u.q2, u.q1]);
  });

  it('weak_claims: below the threshold, weakest first; GET accepts max_confidence', async () => {
    expect(uids((await retrieve({ action: 'weak_claims' })).body)).toEqual([u.weak2, u.weak1]);
    expect(uids((await retrieve({ action: 'weak_claims', threshold: 0.2 })).body)).toEqual([u.weak2]);
    expect(uids((await f.w.get('/claims/weak?max_confidence=0.2')).body)).toEqual([u.weak2]);
    expect(uids((await f.w.get('/claims/weak?threshold=0.95')).body)).toEqual([u.weak2, u.weak1, u.strong]);
  });

  it('pending_approvals oldest first; /decisions open or revisited, newest first', async () => {
    expect(uids((await retrieve({ action: 'pending_approvals' })).body)).toEqual([u.ap2, u.ap1]);
    expect(uids((await f.w.get('/approvals/pending')).body)).toEqual([u.ap2, u.ap1]);
    expect(uids((await f.w.get('/decisions')).body)).toEqual([u.dRev, u.dOpen]);
  });

  it('unresolved_contradictions and merge_candidates have their documented shapes', async () => {
    const c = await retrieve({ action: 'unresolved_contradictions' });
    expect(c.body).toEqual([
      {
        edge_uid: u.contra,
        node_a_uid: u.weak1,
        node_a_label: 'Weak one',
        node_b_uid: u.strong,
        node_b_label: 'Strong one',
        description: 'cannot both hold',
        contradiction_type: 'logical',
        created_at: expect.any(Number),
      },
    ]);
    expect((await f.w.get('/contradictions')).body).toEqual(c.body);
    const m = await retrieve({ action: 'merge_candidates' });
    expect(m.body.map((x: any) => x.edge_uid)).toEqual([u.pd, u.pdLow]);
    expect(m.body[0]).toEqual({
      edge_uid: u.pd,
      node_a_uid: u.weak1,
      node_a_label: 'Weak one',
      node_a_summary: expect.any(String),
      node_b_uid: u.weak2,
      node_b_label: 'Weaker one',
      node_b_summary: expect.any(String),
      node_type: 'Claim',
      similarity: 0.85,
      method: 'fuzzy',
      node_a_truth_status: null,
      node_b_truth_status: null,
    });
  });

  it('curation_counts counts every queue with the same rules', async () => {
    const r = await retrieve({ action: 'curation_counts' });
    expect(r.body).toEqual({
      merge_candidates: 2,
      unresolved_contradictions: 1,
      weak_claims: 2,
      stale_derivations: 0,
      open_questions: 2,
      pending_approvals: 2,
      skill_reviews: 1,
      total: 10,
      threshold: 0.6,
      generated_at: expect.any(Number),
    });
    expect((await retrieve({ action: 'curation_counts', threshold: 0.2 })).body).toMatchObject({ weak_claims: 1, threshold: 0.2, total: 9 });
  });

  it('layer and recent: paginated newest first with an exact has_more', async () => {
    const l = await retrieve({ action: 'layer', layer: 'intent', limit: 2 });
    expect(l.body).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(l.body.items.every((n: any) => n.layer === 'intent')).toBe(true);
    const allIntent = await retrieve({ action: 'layer', layer: 'intent', limit: 1000 });
    expect(allIntent.body.has_more).toBe(false);
    const last = await retrieve({ action: 'layer', layer: 'intent', limit: 2, offset: allIntent.body.items.length - 2 });
    expect(last.body.has_more).toBe(false);
    const created = allIntent.body.items.map((n: any) => n.created_at);
    expect([...created].sort((a, b) => b - a)).toEqual(created);

    const recent = await retrieve({ action: 'recent', limit: 3, node_types: ['Claim'], confidence_min: 0.2 });
    expect(uids(recent.body.items)).toEqual([u.strong, u.weak1]);
    const salient = await retrieve({ action: 'recent', salience_min: 0.85 });
    expect(uids(salient.body.items)).toEqual([u.pref1]);
    const window = await retrieve({ action: 'recent', created_after: 0, created_before: 1 });
    expect(window.body.items).toEqual([]);
    expect((await retrieve({ action: 'recent', limit: 5000 })).body.limit).toBe(1000);
  });

  it('preferences: by salience without a query, hybrid over Preferences with one', async () => {
    const all = await retrieve({ action: 'preferences' });
    expect(all.body.map((x: any) => [x.node.uid, x.score])).toEqual([
      [u.pref1, 0.9],
      [u.pref2, 0.4],
    ]);
    const q = await retrieve({ action: 'preferences', query: 'metric units' });
    expect(q.body[0].node.uid).toBe(u.pref2);
    expect(q.body.every((x: any) => x.node.node_type === 'Preference')).toBe(true);
    expect((await retrieve({ action: 'preferences', k: 1, offset: 1 })).body.map((x: any) => x.node.uid)).toEqual([u.pref2]);
  });

  it('a limit or k of 0 is in range (REFERENCE §1.9): an empty result, for every ranked action and /search', async () => {
    for (const body of [
      { action: 'text', query: 'one', limit: 0 },
      { action: 'semantic', query: 'dark mode', k: 0 },
      { action: 'semantic', query: 'dark mode', limit: 0 },
      { action: 'hybrid', query: 'dark mode', k: 0 },
      { action: 'preferences', k: 0 },
      { action: 'preferences', query: 'metric units', k: 0 },
    ]) {
      const r = await retrieve(body);
      expect([body, r.status, r.body]).toEqual([body, 200, []]);
    }
    const search = await f.w.post('/search', { query: 'one', limit: 0 });
    expect([search.status, search.body]).toEqual([200, []]);
    const enriched = await f.w.post('/search', { query: 'one', limit: 0, include_edges: true, include_chunks: true, chunk_limit: 0 });
    expect([enriched.status, enriched.body]).toEqual([200, { results: [], edges: [], chunks: [] }]);
  });

  it('text and semantic honour node_types (OR), layer and limit/k; Documents hidden unless named', async () => {
    const t = await retrieve({ action: 'text', query: 'one', node_types: ['claim'] });
    expect(t.body.every((x: any) => x.node.node_type === 'Claim')).toBe(true);
    expect(t.body.length).toBe(3);
    expect((await retrieve({ action: 'text', query: 'one', limit: 1 })).body).toHaveLength(1);
    const s = await retrieve({ action: 'semantic', query: 'dark mode', k: 2, limit: 50 });
    expect(s.body).toHaveLength(2);
    expect(s.body[0].node.uid).toBe(u.pref1);
    const layer = await retrieve({ action: 'semantic', query: 'goal', layer: 'intent' });
    expect(layer.body.every((x: any) => x.node.layer === 'intent')).toBe(true);
  });

  it('stale_derivations: premises updated, tombstoned or superseded after the last check', async () => {
    const premise = await mk(f.w, 'Claim', 'Premise P');
    const premise2 = await mk(f.w, 'Claim', 'Premise Q');
    const derived = await mk(f.w, 'Claim', 'Conclusion D');
    await link(f.w, derived, premise, 'DerivedFrom');
    await link(f.w, derived, premise2, 'ReliesOn');
    expect((await retrieve({ action: 'stale_derivations' })).body.items).toEqual([]);
    clock.advance(0.02);
    await f.w.post('/evolve', { action: 'update', uid: premise, label: 'Premise P (revised)' });
    const newer = await mk(f.w, 'Claim', 'Premise Q2');
    await link(f.w, newer, premise2, 'Supersedes');
    const r = await retrieve({ action: 'stale_derivations' });
    expect(r.body).toMatchObject({ has_more: false, limit: 50, offset: 0 });
    expect(r.body.items).toHaveLength(1);
    const item = r.body.items[0];
    expect(item.node.uid).toBe(derived);
    expect(item.stale_premises.map((p: any) => [p.uid, p.edge_type, p.reason])).toEqual([
      [premise, 'DerivedFrom', 'premise_updated'],
      [premise2, 'ReliesOn', 'premise_superseded'],
    ]);
    expect(item.stale_since).toBe(item.stale_premises[0].changed_at);
    expect((await retrieve({ action: 'curation_counts' })).body.stale_derivations).toBe(1);
    // a no-change touch re-validates D
    await f.w.post('/evolve', { action: 'update', uid: derived, reason: 'revalidated' });
    expect((await retrieve({ action: 'stale_derivations' })).body.items).toEqual([]);
  });

  it('include_sources and project_uid follow node → ExtractedFrom → Chunk → ChunkOf → Document → PartOfProject', async () => {
    const project = await mk(f.w, 'Project', 'Apollo');
    const doc = await mk(f.w, 'Document', 'Moon report', { props: { title: 'Moon report', document_type: 'report' } });
    const chunk = await mk(f.w, 'Chunk', 'Moon report · chunk 0', { props: { content: 'lunar regolith samples', chunk_index: 0 } });
    const fact = await mk(f.w, 'Claim', 'Lunar regolith is abrasive');
    const outside = await mk(f.w, 'Claim', 'Lunar regolith is soft');
    await link(f.w, chunk, doc, 'ChunkOf');
    await link(f.w, fact, chunk, 'ExtractedFrom');
    await link(f.w, doc, project, 'PartOfProject');
    const withSources = await retrieve({ action: 'text', query: 'lunar regolith', include_sources: true });
    const item = withSources.body.find((x: any) => x.node.uid === fact);
    expect(item.node.source_documents).toEqual([{ uid: doc, title: 'Moon report' }]);
    expect(withSources.body.find((x: any) => x.node.uid === outside).node.source_documents).toEqual([]);
    const scoped = await retrieve({ action: 'text', query: 'lunar regolith', project_uid: project });
    expect(uids(scoped.body)).toEqual([fact]);
    const hybrid = await retrieve({ action: 'hybrid', query: 'lunar regolith', project_uid: project, node_types: ['Claim', 'Chunk'] });
    expect(uids(hybrid.body).sort()).toEqual([fact, chunk].sort());
    expectError(await retrieve({ action: 'text', query: 'x', project_uid: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found', 'project_uid');
  });

  it('bad input: unknown action lists all 14; missing or mistyped fields are 400s', async () => {
    const r = await retrieve({ action: 'everything' });
    expectError(r, 400, 'unknown_action');
    expect(r.body.valid_actions).toHaveLength(14);
    expectError(await retrieve({}), 400, 'unknown_action');
    // an empty body, or none, is not the {} of the routes that have no required field (§1.1)
    for (const path of ['/retrieve', '/retrieve/context']) {
      expectError(await f.w.post(path, undefined, { raw: '' }), 400, 'invalid_json');
      expectError(await f.w.post(path, undefined, { raw: '  \n' }), 400, 'invalid_json');
      expectError(await f.w.post(path), 400, 'invalid_json');
    }
    expectError(await retrieve({ action: 'text' }), 400, 'missing_field', 'query');
    expectError(await retrieve({ action: 'hybrid', query: '' }), 400, 'missing_field', 'query');
    expectError(await retrieve({ action: 'semantic', query: 'x', k: -1 }), 400, 'invalid_field', 'k');
    expectError(await retrieve({ action: 'text', query: 'x', limit: 1.5 }), 400, 'invalid_field', 'limit');
    expectError(await retrieve({ action: 'layer' }), 400, 'missing_field', 'layer');
    expectError(await retrieve({ action: 'layer', layer: 'astral' }), 400, 'invalid_field', 'layer');
    expectError(await retrieve({ action: 'recent', limit: -1 }), 400, 'invalid_field', 'limit');
    expectError(await retrieve({ action: 'recent', offset: 0.5 }), 400, 'invalid_field', 'offset');
    expectError(await retrieve({ action: 'weak_claims', threshold: 'low' }), 400, 'invalid_field', 'threshold');
    expectError(await retrieve({ action: 'text', query: 'x', node_types: 'Claim!' }), 400, 'invalid_field', 'node_types');
    expectError(await f.w.get('/claims/weak?threshold=abc'), 400, 'invalid_field', 'threshold');
    expectError(await f.w.get('/goals?limit=-3'), 400, 'invalid_field', 'limit');
  });

  it('read-only keys may retrieve; organizations are isolated', async () => {
    expect((await f.ro.post('/retrieve', { action: 'active_goals' })).status).toBe(200);
    const other = await newOrg(f.app);
    expect((await other.w.post('/retrieve', { action: 'active_goals' })).body).toEqual([]);
    expect((await other.w.get('/contradictions')).body).toEqual([]);
    expect((await other.w.post('/retrieve', { action: 'text', query: 'goal' })).body).toEqual([]);
    expect((await other.w.post('/retrieve', { action: 'curation_counts' })).body.total).toBe(0);
  });
});

describe('POST /retrieve/context', () => {
  let f: RetrievalFixture;
  const u: Record<string, string> = {};
  beforeAll(async () => {
    f = await startRetrieval();
    u.claim = await mk(f.w, 'Claim', 'Honeybees pollinate almond orchards', { props: { content: 'almond pollination' } });
    u.evidence = await mk(f.w, 'Evidence', 'Field survey 2021');
    u.agent = await mk(f.w, 'Agent', 'Research agent');
    u.newer = await mk(f.w, 'Claim', 'Bees and wind pollinate almonds');
    u.article = await mk(f.w, 'Article', 'Almond pollination explained', { props: { content: 'Almonds need bees.', questions: ['who pollinates almonds?'] } });
    await link(f.w, u.evidence, u.claim, 'Supports', { weight: 0.9 });
    await link(f.w, u.claim, u.agent, 'BelievedBy', { props: { confidence: 0.7 } });
    await link(f.w, u.newer, u.claim, 'Supersedes');
  }, 60_000);
  afterAll(() => f.close());

  it('ranks nodes (hybrid with the built-in embedder), annotates them and returns the edges among them', async () => {
    const r = await f.w.post('/retrieve/context', { query: 'honeybees almond pollination', node_limit: 2, article_limit: 1 });
    expect(r.status).toBe(200);
    expect(r.body.mode).toBe('hybrid');
    expect(r.body.query).toBe('honeybees almond pollination');
    const nodes = r.body.graph.nodes;
    expect(nodes[0]).toMatchObject({
      uid: u.claim,
      believed_by: [{ agent_uid: u.agent, agent_label: 'Research agent', confidence: 0.7 }],
      superseded: true,
      superseded_by: [u.newer],
      retrieval: { via: 'direct', depth: 0, path_cost: 0 },
    });
    expect(nodes.length).toBeLessThanOrEqual(2);
    expect(r.body.articles).toEqual([
      { uid: u.article, label: 'Almond pollination explained', content: 'Almonds need bees.', article_type: null, covers_uid: null, questions: ['who pollinates almonds?'], score: expect.any(Number) },
    ]);
    expect(r.body.chunks).toEqual([]);
    const among = new Set(nodes.map((n: any) => n.uid));
    for (const e of r.body.graph.edges) expect(among.has(e.from_uid) && among.has(e.to_uid)).toBe(true);
  });

  it('reserves expansion slots for nodes reached from the hits, cheapest first', async () => {
    const r = await f.w.post('/retrieve/context', { query: 'honeybees', node_limit: 2, graph_expansion_limit: 1, article_limit: 0, node_types: ['Claim'] });
    const nodes = r.body.graph.nodes;
    expect(nodes.map((n: any) => n.retrieval.via)).toEqual(['direct', 'expansion']);
    expect(nodes[1]).toMatchObject({ uid: u.evidence, retrieval: { via: 'expansion', depth: 1 } });
    expect(nodes[1].retrieval.path_cost).toBeCloseTo(-Math.log(0.9), 10);
    expect(r.body.graph.edges.map((e: any) => [e.from_uid, e.to_uid])).toEqual([[u.evidence, u.claim]]);
    expect(r.body.articles).toEqual([]);
  });

  it('graph_max_depth bounds the expansion: 0 means the direct hits only; it is a whole number, at most 4', async () => {
    const body = { query: 'honeybees', node_limit: 2, graph_expansion_limit: 1, article_limit: 0, node_types: ['Claim'] };
    const one = await f.w.post('/retrieve/context', { ...body, graph_max_depth: 1 });
    expect(one.body.graph.nodes.map((n: any) => n.retrieval.via)).toEqual(['direct', 'expansion']);
    const zero = await f.w.post('/retrieve/context', { ...body, graph_max_depth: 0 });
    expect(zero.status).toBe(200);
    expect(zero.body.graph.nodes.length).toBeGreaterThan(0);
    for (const n of zero.body.graph.nodes) expect(n.retrieval).toMatchObject({ via: 'direct', depth: 0, path_cost: 0 });
    expect(zero.body.graph.nodes.map((n: any) => n.uid)).not.toContain(u.evidence);
    expect(zero.body.graph.nodes[0].uid).toBe(one.body.graph.nodes[0].uid);
    // more than 4 is held to 4
    expect((await f.w.post('/retrieve/context', { ...body, graph_max_depth: 9 })).status).toBe(200);
    for (const bad of [-1, 1.5, '2', true])
      expectError(await f.w.post('/retrieve/context', { ...body, graph_max_depth: bad }), 400, 'invalid_field', 'graph_max_depth');
  });

  it('says whether nodes with a validity window are valid now, or at valid_at', async () => {
    const rule = await mk(f.w, 'Regulation', 'Almond export quota rule', { props: { valid_from: '2020-01-01', valid_until: '2020-12' } });
    const now = await f.w.post('/retrieve/context', { query: 'almond export quota', node_limit: 1, article_limit: 0 });
    expect(now.body.graph.nodes[0]).toMatchObject({ uid: rule, currently_valid: false });
    expect(now.body.graph.nodes[0].valid_at_time).toBeUndefined();
    const then = await f.w.post('/retrieve/context', { query: 'almond export quota', node_limit: 1, article_limit: 0, valid_at: '2020-12-31' });
    expect(then.body.graph.nodes[0]).toMatchObject({ uid: rule, valid_at_time: true });
    const after = await f.w.post('/retrieve/context', { query: 'almond export quota', node_limit: 1, article_limit: 0, valid_at: '2021-01-01T00:00:00Z' });
    expect(after.body.graph.nodes[0].valid_at_time).toBe(false);
    const plain = await f.w.post('/retrieve/context', { query: 'honeybees', node_limit: 1, article_limit: 0 });
    expect(plain.body.graph.nodes[0].currently_valid).toBeUndefined();
  });

  it('answers in text mode when embeddings are off, and validates its fields', async () => {
    const off = await startRetrieval({ embeddingProvider: 'none' });
    try {
      await mk(off.w, 'Claim', 'Honeybees pollinate almond orchards');
      const r = await off.w.post('/retrieve/context', { query: 'honeybees' });
      expect(r.body.mode).toBe('text');
      expect(r.body.graph.nodes).toHaveLength(1);
    } finally {
      await off.close();
    }
    expectError(await f.w.post('/retrieve/context', {}), 400, 'missing_field', 'query');
    expectError(await f.w.post('/retrieve/context', { query: 'x', node_limit: -1 }), 400, 'invalid_field', 'node_limit');
    expectError(await f.w.post('/retrieve/context', { query: 'x', valid_at: 'yesterday' }), 400, 'invalid_field', 'valid_at');
    expectError(await f.w.post('/retrieve/context', { query: 'x', include_graph: 'no' }), 400, 'invalid_field', 'include_graph');
    expect((await f.ro.post('/retrieve/context', { query: 'bees' })).status).toBe(200);
  });
});
