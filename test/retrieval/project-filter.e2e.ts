import { api, createApiKey } from '../support/http';
import { RetrievalFixture, link, mk, startRetrieval } from './retrieval-fixture';

/**
 * `project_uid` (REFERENCE §5.1) keeps only nodes with provenance in the Project's admitted
 * Documents, plus those Documents and their Chunks: the Project node itself is not one of them,
 * even when it matches the query best — on every route taking the filter.
 */
describe('the project_uid filter leaves the Project node out', () => {
  let f: RetrievalFixture;
  const u: Record<string, string> = {};
  const QUERY = 'Orion heat shield';

  beforeAll(async () => {
    f = await startRetrieval();
    // the Project's label is the best match for the query
    u.project = await mk(f.w, 'Project', 'Orion heat shield');
    u.doc = await mk(f.w, 'Document', 'Orion heat shield test report', { props: { title: 'Orion heat shield test report', document_type: 'report' } });
    u.chunk = await mk(f.w, 'Chunk', 'Orion report · chunk 0', { props: { content: 'the Orion heat shield ablates', chunk_index: 0 } });
    u.fact = await mk(f.w, 'Claim', 'The Orion heat shield ablates evenly');
    u.outside = await mk(f.w, 'Claim', 'Orion heat shield rumours');
    await link(f.w, u.chunk, u.doc, 'ChunkOf');
    await link(f.w, u.fact, u.chunk, 'ExtractedFrom');
    await link(f.w, u.doc, u.project, 'PartOfProject');
    // the Project is linked to the admitted fact, so graph expansion could reach it too
    await link(f.w, u.fact, u.project, 'RelatedTo');
  }, 60_000);
  afterAll(() => f.close());

  const all = [...'text semantic hybrid'.split(' ')];
  const uidsOf = (body: any[]) => body.map((x: any) => x.node.uid);

  it('POST /retrieve text, semantic and hybrid', async () => {
    for (const action of all) {
      // without the filter the Project is a hit
      expect(uidsOf((await f.w.post('/retrieve', { action, query: QUERY })).body)).toContain(u.project);
      const r = await f.w.post('/retrieve', { action, query: QUERY, project_uid: u.project });
      expect(r.status).toBe(200);
      expect(uidsOf(r.body)).toEqual([u.fact]);
      const withDocs = await f.w.post('/retrieve', { action, query: QUERY, project_uid: u.project, node_types: ['Project', 'Document', 'Chunk', 'Claim'] });
      expect(uidsOf(withDocs.body).sort()).toEqual([u.doc, u.chunk, u.fact].sort());
    }
  });

  it('POST /search', async () => {
    expect((await f.w.post('/search', { query: QUERY })).body.map((x: any) => x.uid)).toContain(u.project);
    const r = await f.w.post('/search', { query: QUERY, project_uid: u.project });
    expect(r.status).toBe(200);
    expect(r.body.map((x: any) => x.uid)).toEqual([u.fact]);
  });

  it('POST /retrieve/context: neither a direct hit nor reached by expansion', async () => {
    const plain = await f.w.post('/retrieve/context', { query: QUERY, article_limit: 0 });
    expect(plain.body.graph.nodes[0].uid).toBe(u.project);
    const r = await f.w.post('/retrieve/context', { query: QUERY, article_limit: 0, project_uid: u.project, graph_expansion_limit: 5 });
    expect(r.status).toBe(200);
    const uids = r.body.graph.nodes.map((n: any) => n.uid);
    expect(uids).toContain(u.fact);
    expect(uids).not.toContain(u.project);
    expect(uids).not.toContain(u.outside);
  });

  it('a key scoped to the Project still sees the Project itself, but not through the filter', async () => {
    const key = await createApiKey(f.app.url, f.jwt, { scopes: ['read'], project_uids: [u.project], name: 'orion' });
    const scoped = api(f.app.url, key.key);
    expect((await scoped.get(`/node/${u.project}`)).status).toBe(200);
    expect(uidsOf((await scoped.post('/retrieve', { action: 'text', query: QUERY })).body).sort()).toEqual([u.project, u.fact].sort());
    expect(uidsOf((await scoped.post('/retrieve', { action: 'text', query: QUERY, project_uid: u.project })).body)).toEqual([u.fact]);
  });

  it('keeps the Project when it genuinely has provenance in an admitted Document', async () => {
    const p = await mk(f.w, 'Project', 'Orion heat shield follow-up');
    const d = await mk(f.w, 'Document', 'Follow-up plan', { props: { title: 'Follow-up plan', document_type: 'report' } });
    const c = await mk(f.w, 'Chunk', 'Follow-up plan · chunk 0', { props: { content: 'the follow-up project', chunk_index: 0 } });
    await link(f.w, c, d, 'ChunkOf');
    await link(f.w, d, p, 'PartOfProject');
    expect(uidsOf((await f.w.post('/retrieve', { action: 'text', query: 'follow-up', project_uid: p })).body)).toEqual([]);
    await link(f.w, p, c, 'ExtractedFrom');
    expect(uidsOf((await f.w.post('/retrieve', { action: 'text', query: 'follow-up', project_uid: p })).body)).toEqual([p]);
  });
});
