import { call, CognitiveFixture, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

/**
 * REFERENCE §4.3: at most one live Series per (entity_uid, metric), whatever route makes a
 * Series live or moves its metric or entity: 409 `duplicate` with `existing_uid`, nothing written.
 */
describe('one live Series per (entity_uid, metric) on every write path', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const S = '/reality/series';

  const series = async (entity: string, label: string, metric?: string) =>
    (await call(f.w, S, { action: 'create', label, entity_uid: entity, ...(metric ? { props: { metric } } : {}) }, 201)).uid as string;
  const liveFor = async (entity: string, metric: string) =>
    (await call(f.w, S, { action: 'list_for_entity', entity_uid: entity, metric }, 200)).items.map((s: { uid: string }) => s.uid);

  /** Sends the write, expects 409 duplicate naming `existing`, and checks the graph did not move. */
  async function refused(send: () => Promise<{ status: number; body: any }>, existing: string) {
    const before = await graphSize(f.w);
    const r = await send();
    expect([r.status, r.body.code, r.body.existing_uid]).toEqual([409, 'duplicate', existing]);
    expect(await graphSize(f.w)).toEqual(before);
  }

  it('/evolve restore of a deleted Series whose key was taken meanwhile', async () => {
    const e = await makeNode(f.w, 'Person', 'Ada');
    const s1 = await series(e, 'm');
    await call(f.w, S, { action: 'delete', series_uid: s1 }, 200);
    const s2 = await series(e, 'm');
    await refused(() => f.w.post('/evolve', { action: 'restore', uid: s1 }), s2);
    expect((await node(f.w, s1)).tombstone_at).not.toBeNull();
    expect(await liveFor(e, 'm')).toEqual([s2]);
    // once the key is free again, the restore goes through
    await call(f.w, S, { action: 'delete', series_uid: s2 }, 200);
    expect((await f.w.post('/evolve', { action: 'restore', uid: s1 })).status).toBe(200);
    expect(await liveFor(e, 'm')).toEqual([s1]);
  });

  it('POST /node and POST /batch creating a Series for a held key; two in one batch', async () => {
    const e = await makeNode(f.w, 'Person', 'Bob');
    const s1 = await series(e, 'm');
    const twin = { label: 'm dup', node_type: 'Series', props: { metric: 'm', entity_uid: e } };
    await refused(() => f.w.post('/node', twin), s1);
    await refused(() => f.w.post('/batch', { nodes: [{ label: 'fine', node_type: 'Concept' }, twin] }), s1);
    const fresh = { label: 'n', node_type: 'Series', props: { metric: 'n', entity_uid: e } };
    const both = await f.w.post('/batch', { nodes: [fresh, { ...fresh, label: 'n again' }] });
    expect([both.status, both.body.code]).toEqual([409, 'duplicate']);
    expect(await liveFor(e, 'n')).toEqual([]);
    // a Series of another metric, or without an entity, is fine
    expect((await f.w.post('/node', { ...twin, props: { metric: 'other', entity_uid: e } })).status).toBe(201);
    expect((await f.w.post('/node', { ...twin, props: { metric: 'm' } })).status).toBe(201);
    expect(await liveFor(e, 'm')).toEqual([s1]);
  });

  it('PATCH /node and /evolve update moving a Series onto a held metric or entity; other edits pass', async () => {
    const e = await makeNode(f.w, 'Person', 'Cy');
    const other = await makeNode(f.w, 'Person', 'Di');
    const held = await series(e, 'm');
    const s = await series(e, 'x');
    await refused(() => f.w.patch(`/node/${s}`, { props: { metric: 'm' } }), held);
    await refused(() => f.w.post('/evolve', { action: 'update', uid: s, props_patch: { metric: 'm' } }), held);
    const t = await series(other, 'm');
    await refused(() => f.w.patch(`/node/${t}`, { props: { entity_uid: e } }), held);
    expect((await node(f.w, s)).props.metric).toBe('x');
    expect(await liveFor(e, 'm')).toEqual([held]);
    // editing a Series without moving its key is not affected
    expect((await f.w.patch(`/node/${held}`, { label: 'm renamed', props: { unit: 'kg' } })).status).toBe(200);
    expect((await f.w.patch(`/node/${s}`, { props: { metric: 'y' } })).status).toBe(200);
  });

  it('/import of a live Series whose key a different live Series holds here', async () => {
    const e = await makeNode(f.w, 'Person', 'Eve');
    const held = await series(e, 'm');
    const snap = (await f.w.get('/export')).body;
    const mine = snap.nodes.find((n: { uid: string }) => n.uid === held);
    const foreign = { ...mine, uid: 'imported-series-1', label: 'imported m' };
    const body = { format: 'strata.graph', format_version: 1, nodes: [foreign], edges: [], aliases: [], embeddings: null, series_points: [] };
    await refused(() => f.w.post('/import', body), held);
    // imported tombstoned it breaks nothing, and re-importing what is already here is still a no-op
    const dead = { ...foreign, tombstone_at: foreign.updated_at, tombstone_reason: 'x' };
    expect((await f.w.post('/import', { ...body, nodes: [dead] })).status).toBe(200);
    expect((await f.w.post('/import', { ...body, nodes: [mine] })).body).toMatchObject({ nodes_imported: 0, nodes_skipped: 1 });
    expect(await liveFor(e, 'm')).toEqual([held]);
  });

  it('concurrent creates through different routes leave exactly one live Series', async () => {
    const e = await makeNode(f.w, 'Person', 'Flo');
    const rs = await Promise.all([
      f.w.post(S, { action: 'create', label: 'm', entity_uid: e }),
      f.w.post('/node', { label: 'm', node_type: 'Series', props: { metric: 'm', entity_uid: e } }),
      f.w.post('/batch', { nodes: [{ label: 'm', node_type: 'Series', props: { metric: 'm', entity_uid: e } }] }),
      f.w.post(S, { action: 'create', label: 'm', entity_uid: e }),
    ]);
    expect(rs.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await liveFor(e, 'm')).toHaveLength(1);
  });
});
