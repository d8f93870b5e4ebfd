import { ProjectScopeWorld, seedProjectScope } from '../support/project-scope';
import { graphSize } from '../cognitive/cognitive-fixture';
import { expectError, link, mk, startRetrieval, RetrievalFixture } from './retrieval-fixture';

/**
 * A Project-scoped key sees its Project and what the Project admits (documents, their chunks,
 * nodes extracted from them); everything else looks like it does not exist (404, never 403).
 */
describe('Project-scoped credentials on retrieval routes', () => {
  let f: RetrievalFixture;
  let u: ProjectScopeWorld;
  let scoped: ProjectScopeWorld['scoped'];

  beforeAll(async () => {
    f = await startRetrieval();
    u = await seedProjectScope(f, 'Heat shield secret outside the project');
    scoped = u.scoped;
  }, 60_000);
  afterAll(() => f.close());

  it('search and retrieve only return admitted nodes', async () => {
    expect((await f.w.post('/search', { query: 'heat shield' })).body.map((x: any) => x.uid).sort()).toEqual([u.inside, u.outside].sort());
    expect((await scoped.post('/search', { query: 'heat shield' })).body.map((x: any) => x.uid)).toEqual([u.inside]);
    for (const action of ['text', 'semantic', 'hybrid']) {
      const r = await scoped.post('/retrieve', { action, query: 'heat shield secret outside' });
      expect(r.body.map((x: any) => x.node.uid)).not.toContain(u.outside);
    }
    expect((await scoped.post('/embeddings/search-text', { text: 'heat shield secret outside' })).body.map((x: any) => x.node.uid)).not.toContain(u.outside);
    const recent = await scoped.post('/retrieve', { action: 'recent', limit: 100 });
    expect(recent.body.items.map((n: any) => n.uid).sort()).toEqual([u.project, u.doc, u.chunk, u.inside].sort());
  });

  it('traversal never enters nodes outside the scope, and outside starts are 404', async () => {
    const r = await scoped.post('/traverse', { action: 'neighborhood', start_uid: u.inside });
    expect(r.body.steps.map((s: any) => s.node_uid)).toEqual([u.chunk, u.doc]);
    expectError(await scoped.post('/traverse', { action: 'neighborhood', start_uid: u.outside }), 404, 'not_found', 'start_uid');
    expectError(await scoped.get(`/path?from=${u.inside}&to=${u.outside}`), 404, 'not_found', 'to');
  });

  it('aliases, resolution, embeddings and evolve hide what is out of scope', async () => {
    expectError(await scoped.get(`/aliases/${u.outside}`), 404, 'not_found');
    expectError(await scoped.get(`/node/${u.outside}/embedding`), 404, 'not_found');
    expect((await scoped.get(`/node/${u.inside}/embedding`)).status).toBe(200);
    expectError(await scoped.post('/evolve', { action: 'history', uid: u.outside }), 404, 'not_found');
    expectError(await scoped.post('/evolve', { action: 'tombstone', uid: u.outside }), 404, 'not_found');
    const res = await scoped.get('/resolve?text=heat%20shield%20secret&min_score=0');
    expect(res.body.fuzzy.map((m: any) => m.uid)).not.toContain(u.outside);
    expectError(await scoped.post('/evolve', { action: 'decay' }), 403, 'scope_denied');
    expect((await f.w.get(`/node/${u.outside}`)).body.tombstone_at).toBeNull();
  });

  it('cannot configure or bulk-embed the organization\'s embeddings: graph-wide routes are 403 scope_denied', async () => {
    const before = (await f.w.get('/stats')).body;
    // `force` would drop every vector of the organization, not only what the key can see
    expectError(await scoped.post('/embeddings/configure', { dimensions: 16, force: true }), 403, 'scope_denied');
    expectError(await scoped.post('/embeddings/configure', { provider: 'builtin', dimensions: before.embedding_dimension ?? 384 }), 403, 'scope_denied');
    // embed-all embeds (and counts) every live node of the organization
    expectError(await scoped.post('/ingest/embed-all', {}), 403, 'scope_denied');
    const after = (await f.w.get('/stats')).body;
    expect(after.embedding_dimension).not.toBe(16);
    expect([after.embedding_dimension, after.embedding_model]).toEqual([before.embedding_dimension, before.embedding_model]);
    // organization-wide credentials still may
    expect((await f.w.post('/ingest/embed-all', {})).status).toBe(202);
  });

  it('merge, aliases and /reality/entity never reach a node out of scope, nor reveal its type', async () => {
    const q1 = await mk(f.w, 'Organization', 'Hidden Holdings');
    const q2 = await mk(f.w, 'Organization', 'Hidden Holdings Inc');
    const person = await mk(f.w, 'Person', 'Hidden Person');
    const before = await graphSize(f.w);
    expectError(await scoped.get(`/node/${q1}`), 404, 'not_found');

    // 404 naming the field, never 200 nor a 400 wrong_node_type telling the hidden node's type
    expectError(await scoped.post('/entities/merge', { keep_uid: q1, merge_uid: q2 }), 404, 'not_found', 'keep_uid');
    expectError(await scoped.post('/entities/merge', { keep_uid: q1, merge_uid: person }), 404, 'not_found', 'keep_uid');
    expectError(await scoped.post('/entities/merge', { keep_uid: u.inside, merge_uid: person }), 404, 'not_found', 'merge_uid');
    expectError(await scoped.post('/alias', { text: 'injected', canonical_uid: q1 }), 404, 'not_found', 'canonical_uid');
    const entity = (body: Record<string, unknown>) => scoped.post('/reality/entity', body);
    expectError(await entity({ action: 'merge', keep_uid: q1, merge_uid: q2 }), 404, 'not_found', 'keep_uid');
    expectError(await entity({ action: 'merge', keep_uid: u.inside, merge_uid: person }), 404, 'not_found', 'merge_uid');
    expectError(await entity({ action: 'alias', text: 'injected', canonical_uid: q1 }), 404, 'not_found', 'canonical_uid');
    expectError(await entity({ action: 'relate', source_uid: q1, target_uid: u.inside, edge_type: 'RelatedTo' }), 404, 'not_found', 'source_uid');
    expectError(await entity({ action: 'relate', source_uid: u.inside, target_uid: q1, edge_type: 'RelatedTo' }), 404, 'not_found', 'target_uid');
    // the same answer as for a uid that never existed
    const ghost = '00000000-0000-4000-8000-000000000000';
    expect((await scoped.post('/entities/merge', { keep_uid: ghost, merge_uid: q2 })).body.code).toBe('not_found');
    expect(await graphSize(f.w)).toEqual(before);
    expect((await f.w.get(`/aliases/${q1}`)).body).toEqual([]);
    for (const uid of [q1, q2, person]) expect((await f.w.get(`/node/${uid}`)).body).toMatchObject({ version: 1, tombstone_at: null });

    // resolution never offers hidden nodes, and find-or-create neither returns one nor aliases it
    expect((await entity({ action: 'resolve', text: 'Hidden Holdings' })).body).toEqual({ uid: null });
    expect((await entity({ action: 'fuzzy_resolve', text: 'Hidden Holdings', min_score: 0 })).body.matches).toEqual([]);
    expect((await scoped.get('/resolve?text=Hidden%20Holdings&min_score=0')).body).toMatchObject({ exact: null, fuzzy: [] });
    const created = await entity({ action: 'create', label: 'Hidden Holdings', props: { entity_type: 'organization' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ created: true, matched_by: null, node_type: 'Organization' });
    expect(created.body.uid).not.toBe(q1);
    expect((await f.w.get(`/aliases/${q1}`)).body).toEqual([]);

    // inside the scope the same calls work
    const ally = await mk(f.w, 'Claim', 'Heat shield ablates at reentry (copy)');
    await link(f.w, ally, u.chunk, 'ExtractedFrom');
    expect((await scoped.post('/alias', { text: 'ablation claim', canonical_uid: u.inside })).status).toBe(201);
    const merged = await scoped.post('/entities/merge', { keep_uid: u.inside, merge_uid: ally });
    expect(merged.status).toBe(200);
    expect(merged.body).toMatchObject({ keep_uid: u.inside, merge_uid: ally });
  });
});
