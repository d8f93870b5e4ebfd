import { expectError, link, mk, newOrg, startRetrieval, RetrievalFixture } from './retrieval-fixture';

describe('POST /search', () => {
  let f: RetrievalFixture;
  const u: Record<string, string> = {};

  beforeAll(async () => {
    f = await startRetrieval();
    u.labelHit = await mk(f.w, 'Claim', 'Quantum entanglement is nonlocal', { summary: 'Bell tests' });
    u.summaryHit = await mk(f.w, 'Claim', 'Bell inequality violations', { summary: 'quantum correlations exceed classical bounds' });
    u.propsHit = await mk(f.w, 'Evidence', 'Aspect experiment 1982', { props: { description: 'polarised photons show quantum correlation' } });
    u.goal = await mk(f.w, 'Goal', 'Build a quantum computer');
    u.doc = await mk(f.w, 'Document', 'Quantum primer', { props: { title: 'Quantum primer', document_type: 'article' } });
    u.chunk = await mk(f.w, 'Chunk', 'Quantum primer · chunk 0', { props: { content: 'quantum states superpose', chunk_index: 0, chunk_type: 'document' } });
    await link(f.w, u.chunk, u.doc, 'ChunkOf');
    u.gone = await mk(f.w, 'Claim', 'Quantum gravity is solved');
    await f.w.delete(`/node/${u.gone}`);
    await link(f.w, u.summaryHit, u.labelHit, 'Supports');
  }, 60_000);
  afterAll(() => f.close());

  it('returns {uid, label, summary, node_type, layer, score}, label matches first, tombstoned never', async () => {
    const r = await f.w.post('/search', { query: 'quantum' });
    expect(r.status).toBe(200);
    const uids = r.body.map((x: any) => x.uid);
    expect(uids).not.toContain(u.gone);
    expect(uids.indexOf(u.labelHit)).toBeLessThan(uids.indexOf(u.summaryHit));
    expect(uids.indexOf(u.summaryHit)).toBeLessThan(uids.indexOf(u.propsHit));
    expect(r.body[0]).toEqual({ uid: expect.any(String), label: expect.any(String), summary: expect.any(String), node_type: expect.any(String), layer: expect.any(String), score: expect.any(Number) });
    const scores = r.body.map((x: any) => x.score);
    expect([...scores].sort((a: number, b: number) => b - a)).toEqual(scores);
  });

  it('leaves Document and Chunk nodes out unless node_type names them', async () => {
    const all = await f.w.post('/search', { query: 'quantum primer' });
    expect(all.body.map((x: any) => x.uid)).not.toContain(u.doc);
    const docs = await f.w.post('/search', { query: 'quantum primer', node_type: 'document' });
    expect(docs.body.map((x: any) => x.uid)).toEqual([u.doc]);
  });

  it('filters by node_type and layer, limits, and drops scores under min_score', async () => {
    const goals = await f.w.post('/search', { query: 'quantum', node_type: 'Goal' });
    expect(goals.body.map((x: any) => x.uid)).toEqual([u.goal]);
    const intent = await f.w.post('/search', { query: 'quantum', layer: 'intent' });
    expect(intent.body.map((x: any) => x.uid)).toEqual([u.goal]);
    expect((await f.w.post('/search', { query: 'quantum', limit: 2 })).body).toHaveLength(2);
    const all = (await f.w.post('/search', { query: 'quantum' })).body;
    const cut = all[1].score;
    const filtered = (await f.w.post('/search', { query: 'quantum', min_score: cut })).body;
    expect(filtered.every((x: any) => x.score >= cut)).toBe(true);
    expect(filtered.length).toBeLessThan(all.length);
  });

  it('enriched form: live edges among the results and matching chunks with their document', async () => {
    const r = await f.w.post('/search', { query: 'quantum', include_edges: true, include_chunks: true });
    expect(Object.keys(r.body).sort()).toEqual(['chunks', 'edges', 'results']);
    expect(r.body.edges.map((e: any) => [e.from_uid, e.to_uid])).toEqual([[u.summaryHit, u.labelHit]]);
    expect(r.body.chunks).toEqual([
      { chunk_uid: u.chunk, content: 'quantum states superpose', document_uid: u.doc, document_title: 'Quantum primer', chunk_index: 0, score: expect.any(Number) },
    ]);
  });

  it('sees updates and restores through the projection', async () => {
    const n = await mk(f.w, 'Claim', 'Placeholder title');
    expect((await f.w.post('/search', { query: 'zeppelin' })).body).toEqual([]);
    await f.w.patch(`/node/${n}`, { label: 'Zeppelin airships' });
    expect((await f.w.post('/search', { query: 'zeppelin' })).body.map((x: any) => x.uid)).toEqual([n]);
    await f.w.post('/evolve', { action: 'tombstone', uid: n });
    expect((await f.w.post('/search', { query: 'zeppelin' })).body).toEqual([]);
    await f.w.post('/evolve', { action: 'restore', uid: n });
    expect((await f.w.post('/search', { query: 'zeppelin' })).body.map((x: any) => x.uid)).toEqual([n]);
  });

  it('rejects bad input with 4xx codes', async () => {
    expectError(await f.w.post('/search', {}), 400, 'missing_field', 'query');
    expectError(await f.w.post('/search', { query: '   ' }), 400, 'missing_field', 'query');
    expectError(await f.w.post('/search', { query: 5 }), 400, 'invalid_field', 'query');
    expectError(await f.w.post('/search', { query: 'x', limit: -1 }), 400, 'invalid_field', 'limit');
    expectError(await f.w.post('/search', { query: 'x', limit: 1.5 }), 400, 'invalid_field', 'limit');
    expectError(await f.w.post('/search', { query: 'x', layer: 'nowhere' }), 400, 'invalid_field', 'layer');
    expectError(await f.w.post('/search', { query: 'x', node_type: '!!' }), 400, 'invalid_field', 'node_type');
    expectError(await f.w.post('/search', { query: 'x', include_edges: 'yes' }), 400, 'invalid_field', 'include_edges');
    expectError(await f.w.post('/search', { query: 'x', project_uid: u.goal }), 400, 'wrong_node_type', 'project_uid');
    expectError(await f.w.post('/search', undefined, { raw: '{"query":', contentType: 'application/json' }), 400, 'invalid_json');
    expect((await f.w.post('/search', { query: 'quantum', limit: 5000 })).status).toBe(200); // clamped
  });

  it('read-only keys can search; another organization finds nothing of this one', async () => {
    expect((await f.ro.post('/search', { query: 'quantum' })).body.length).toBeGreaterThan(0);
    const other = await newOrg(f.app);
    expect((await other.w.post('/search', { query: 'quantum' })).body).toEqual([]);
    expect((await f.w.post('/search', { query: 'quantum' }, { token: undefined })).status).toBe(401);
  });
});
