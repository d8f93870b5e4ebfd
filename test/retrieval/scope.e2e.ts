import { api, createApiKey } from '../support/http';
import { expectError, link, mk, startRetrieval, RetrievalFixture } from './retrieval-fixture';

/**
 * A Project-scoped key sees its Project and what the Project admits (documents, their chunks,
 * nodes extracted from them); everything else looks like it does not exist (404, never 403).
 */
describe('Project-scoped credentials on retrieval routes', () => {
  let f: RetrievalFixture;
  let scoped: ReturnType<typeof api>;
  const u: Record<string, string> = {};

  beforeAll(async () => {
    f = await startRetrieval();
    u.project = await mk(f.w, 'Project', 'Orion');
    u.doc = await mk(f.w, 'Document', 'Orion spec', { props: { title: 'Orion spec', document_type: 'article' } });
    u.chunk = await mk(f.w, 'Chunk', 'Orion spec · chunk 0', { props: { content: 'heat shield ablation', chunk_index: 0 } });
    u.inside = await mk(f.w, 'Claim', 'Heat shield ablates at reentry');
    u.outside = await mk(f.w, 'Claim', 'Heat shield secret outside the project');
    await link(f.w, u.chunk, u.doc, 'ChunkOf');
    await link(f.w, u.inside, u.chunk, 'ExtractedFrom');
    await link(f.w, u.doc, u.project, 'PartOfProject');
    await link(f.w, u.inside, u.outside, 'Supports');
    const key = await createApiKey(f.app.url, f.jwt, { scopes: ['read', 'write'], project_uids: [u.project], name: 'scoped' });
    scoped = api(f.app.url, key.key);
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
});
