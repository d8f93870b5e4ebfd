import { ProjectScopeWorld, seedProjectScope } from '../support/project-scope';
import { graphSize } from '../cognitive/cognitive-fixture';
import { expectError, link, mk, startRetrieval, RetrievalFixture } from '../retrieval/retrieval-fixture';

/**
 * A Project-scoped key on the generic graph routes: what its Project admits reads as usual;
 * every other node and every edge touching one answers like it does not exist (404, never 403),
 * lists leave them out, and writes naming them are refused without changing anything.
 */
describe('Project-scoped credentials on the generic graph routes', () => {
  let f: RetrievalFixture;
  let u: ProjectScopeWorld;
  let scoped: ProjectScopeWorld['scoped'];

  beforeAll(async () => {
    f = await startRetrieval();
    u = await seedProjectScope(f, 'Budget figures outside the project');
    scoped = u.scoped;
  }, 60_000);
  afterAll(() => f.close());

  it('reads admitted nodes and answers 404 for the others, history included', async () => {
    expect((await scoped.get(`/node/${u.inside}`)).status).toBe(200);
    expect((await scoped.get(`/node/${u.inside}/history`)).status).toBe(200);
    expectError(await scoped.get(`/node/${u.outside}`), 404, 'not_found');
    expectError(await scoped.get(`/node/${u.outside}/history`), 404, 'not_found');
    expectError(await scoped.get(`/node/${u.outside}/history/1`), 404, 'not_found');
    // the same answer as a uid that never existed
    const ghost = await scoped.get('/node/00000000-0000-4000-8000-000000000000');
    expect((await scoped.get(`/node/${u.outside}`)).body.code).toBe(ghost.body.code);
  });

  it('lists and batches only hold visible nodes and edges', async () => {
    const listed = await scoped.get('/nodes?limit=100');
    expect(listed.body.items.map((n: any) => n.uid).sort()).toEqual([u.project, u.doc, u.chunk, u.inside].sort());
    expect((await f.w.get('/nodes?limit=100')).body.items.map((n: any) => n.uid)).toContain(u.outside);
    const batch = await scoped.post('/nodes/batch', { uids: [u.outside, u.inside] });
    expect([batch.body.nodes.map((n: any) => n.uid), batch.body.missing]).toEqual([[u.inside], [u.outside]]);
    const edges = await scoped.get(`/edges?from_uid=${u.inside}`);
    expect(edges.body.map((e: any) => e.uid)).toEqual([u.extracted]);
    expect((await scoped.get(`/edge/between?from_uid=${u.inside}&to_uid=${u.outside}`)).body).toEqual([]);
    expect((await scoped.post('/edges/batch', { uids: [u.inside, u.outside, u.chunk] })).body.map((e: any) => e.uid)).toEqual([u.extracted]);
    expectError(await scoped.get(`/edge/${u.crossing}/history`), 404, 'not_found');
    expect((await scoped.get(`/edge/${u.extracted}/history`)).status).toBe(200);
  });

  it('refuses writes that name what it cannot see, and changes nothing', async () => {
    expectError(await scoped.patch(`/node/${u.outside}`, { label: 'renamed' }), 404, 'not_found');
    expectError(await scoped.delete(`/node/${u.outside}`), 404, 'not_found');
    expectError(await scoped.post('/link', { from_uid: u.inside, to_uid: u.outside, edge_type: 'Contradicts' }), 404, 'not_found', 'to_uid');
    expectError(await scoped.post('/edge', { from_uid: u.outside, to_uid: u.inside, edge_type: 'Supports' }), 404, 'not_found', 'from_uid');
    expectError(await scoped.patch(`/edge/${u.crossing}`, { weight: 0.1 }), 404, 'not_found');
    expectError(await scoped.delete(`/edge/${u.crossing}`), 404, 'not_found');
    expectError(await scoped.post('/nodes/delete', { agent_id: 'someone' }), 403, 'scope_denied');
    const outside = await f.w.get(`/node/${u.outside}`);
    expect([outside.body.label, outside.body.version, outside.body.tombstone_at]).toEqual(['Budget figures outside the project', 1, null]);
    expect((await f.w.get(`/edges?from_uid=${u.inside}`)).body.map((e: any) => e.uid).sort()).toEqual([u.extracted, u.crossing].sort());
    // inside the scope the same writes work
    expect((await scoped.patch(`/node/${u.inside}`, { salience: 0.9 })).status).toBe(200);
  });

  it('refuses /batch edges and cognitive triggers naming what it cannot see, writing nothing', async () => {
    const before = await graphSize(f.w);
    const batch = await scoped.post('/batch', { nodes: [{ ref: 'n', label: 'New note', node_type: 'Note' }], edges: [{ from_ref: 'n', to_uid: u.outside, edge_type: 'RelatedTo' }] });
    expectError(batch, 404, 'not_found', 'to_uid');
    expect(batch.body.index).toBe('edges[0].to_uid');
    const argue = await scoped.post('/epistemic/argument', { claim: { label: 'Budget is wrong' }, refutes_uid: u.outside });
    expectError(argue, 404, 'not_found', 'refutes_uid');
    expect(await graphSize(f.w)).toEqual(before);
    // the same calls naming visible nodes are written
    const ok = await scoped.post('/epistemic/argument', { claim: { label: 'Ablation is well modelled' }, extends_uid: u.inside });
    expect(ok.status).toBe(201);
  });
});

/**
 * A scoped key's writes to nodes it may see also move the edges those nodes have to hidden
 * ones (a cascade or a merge keeps the graph whole), but the counts it is answered with only
 * include the edges it may see, so they do not reveal the others (REFERENCE §1.8).
 */
describe('Project-scoped credentials: counts of cascades and merges', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval();
  }, 60_000);
  afterAll(() => f.close());

  it('a merge and a delete count only visible edges, while every edge follows', async () => {
    const u = await seedProjectScope(f, 'Hidden budget figures');
    const twin = await mk(f.w, 'Claim', 'Heat shield ablation at reentry');
    await link(f.w, twin, u.chunk, 'ExtractedFrom'); // admitted, like u.inside
    const hiddenMove = await link(f.w, twin, u.outside, 'Contradicts'); // moves to u.inside: hidden
    await link(f.w, twin, u.outside, 'Supports'); // duplicates u.crossing: dropped, hidden
    expect((await u.scoped.get(`/edges?from_uid=${twin}`)).body).toHaveLength(1);

    const merge = await u.scoped.post('/entities/merge', { keep_uid: u.inside, merge_uid: twin });
    expect(merge.status).toBe(200);
    expect(merge.body).toMatchObject({ edges_retargeted: 0, edges_dropped: 1 });
    expect((await f.w.get(`/edges?from_uid=${u.inside}`)).body.map((e: { uid: string }) => e.uid)).toContain(hiddenMove);

    const del = await u.scoped.delete(`/node/${u.inside}`);
    expect(del.body).toMatchObject({ tombstoned: true, edges_tombstoned: 1 });
    // the hidden edges went with the node: no live edge to a tombstoned node
    for (const e of [u.crossing, hiddenMove]) expect((await f.w.get(`/edge/${e}/history`)).body.at(-1).change_type).toBe('tombstone');
  });

  it("a Series key held by a Series the key cannot see is refused without that Series' uid", async () => {
    const u = await seedProjectScope(f, 'Outside, for the series test');
    const held = await f.w.post('/reality/series', { action: 'create', label: 'Hidden thrust series', entity_uid: u.project, props: { metric: 'thrust' } });
    expect(held.status).toBe(201);
    const hidden = held.body.uid as string;
    expectError(await u.scoped.get(`/node/${hidden}`), 404, 'not_found');
    const attempts = [
      await u.scoped.post('/reality/series', { action: 'create', label: 'Mine', entity_uid: u.project, props: { metric: 'thrust' } }),
      await u.scoped.post('/node', { node_type: 'Series', label: 'Mine too', props: { entity_uid: u.project, metric: 'thrust' } }),
    ];
    for (const r of attempts) {
      expect([r.status, r.body.code]).toEqual([409, 'duplicate']);
      expect(r.body).not.toHaveProperty('existing_uid');
      expect(r.text).not.toContain(hidden);
    }
    // re-keying a Series of its own onto the hidden one's key, through /evolve
    const visible = await f.w.post('/reality/series', { action: 'create', label: 'Admitted drag series', entity_uid: u.project, props: { metric: 'drag' } });
    await link(f.w, visible.body.uid, u.chunk, 'ExtractedFrom'); // admitted by the project
    expect((await u.scoped.get(`/node/${visible.body.uid}`)).status).toBe(200);
    const rekey = await u.scoped.post('/evolve', { action: 'update', uid: visible.body.uid, props_patch: { metric: 'thrust' } });
    expect([rekey.status, rekey.body.code, rekey.text.includes(hidden)]).toEqual([409, 'duplicate', false]);
    // an organization-wide key is told which Series holds the key
    const org = await f.w.post('/reality/series', { action: 'create', label: 'Org', entity_uid: u.project, props: { metric: 'thrust' } });
    expect(org.body).toMatchObject({ code: 'duplicate', existing_uid: hidden });
  });
});
