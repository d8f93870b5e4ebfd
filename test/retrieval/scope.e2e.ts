import { ProjectScopeWorld, seedProjectScope } from '../support/project-scope';
import { expectError, startRetrieval, RetrievalFixture } from './retrieval-fixture';

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
});
