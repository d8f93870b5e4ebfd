import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';

describe('generic edge routes', () => {
  let app: TestApp;
  let c: Api;
  const node = async (label: string, node_type: string) => (await c.post('/node', { label, node_type })).body;

  beforeAll(async () => {
    app = await startTestApp();
    const owner = await signUp(app.url);
    c = api(app.url, (await createApiKey(app.url, owner.access_token, { scopes: ['read', 'write'] })).key);
  });
  afterAll(() => app.close());

  it('names both edge types in canonical form when props._type contradicts edge_type', async () => {
    const claim = await node('C', 'Claim');
    const r = await c.post('/edge', { from_uid: claim.uid, to_uid: claim.uid, edge_type: 'has_premise', props: { _type: 'belongs_to' } });
    expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_props', 'props._type']);
    expect(r.body.error).toBe("props._type 'BelongsTo' contradicts edge_type 'HasPremise'");
  });

  it('links with default props and canonical type; the layer is the from-node layer', async () => {
    const claim = await node('C', 'Claim');
    const goal = await node('G', 'Goal');
    const r = await c.post('/link', { from_uid: goal.uid, to_uid: claim.uid, edge_type: 'relevant_to', agent_id: 'linker' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      from_uid: goal.uid,
      to_uid: claim.uid,
      edge_type: 'RelevantTo',
      layer: 'intent',
      weight: 0.5,
      confidence: 1,
      props: { _type: 'RelevantTo', relevance_score: null },
      agent_id: 'linker',
      version: 1,
      tombstone_at: null,
    });
  });

  it('creates edges with full props, custom types in PascalCase, self-loops and parallel edges', async () => {
    const a = await node('A', 'Claim');
    const b = await node('B', 'Evidence');
    const e = await c.post('/edge', { from_uid: b.uid, to_uid: a.uid, props: { _type: 'supports', strength: 0.8 }, weight: 0.9 });
    expect(e.status).toBe(201);
    expect(e.body).toMatchObject({ edge_type: 'Supports', weight: 0.9, props: { _type: 'Supports', strength: 0.8, support_type: null } });
    const custom = await c.post('/edge', { from_uid: a.uid, to_uid: a.uid, edge_type: 'BELONGS_TO', props: { anything: true } });
    expect(custom.body).toMatchObject({ edge_type: 'BelongsTo', props: { _type: 'BelongsTo', anything: true } });
    const again = await c.post('/edge', { from_uid: b.uid, to_uid: a.uid, edge_type: 'Supports' });
    expect(again.status).toBe(201);
    const between = await c.get(`/edge/between?from_uid=${b.uid}&to_uid=${a.uid}&edge_type=SUPPORTS`);
    expect(between.body).toHaveLength(2);
    expect((await c.get(`/edge/between?from_uid=${a.uid}&to_uid=${b.uid}`)).body).toHaveLength(0);
  });

  it.each([
    [{ to_uid: 'x', edge_type: 'Supports' }, 400, 'missing_field'],
    [{ from_uid: 'bad uid', to_uid: 'x', edge_type: 'Supports' }, 400, 'invalid_uid'],
    [{ from_uid: 'a', to_uid: 'b' }, 400, 'missing_field'],
    [{ from_uid: 'a', to_uid: 'b', edge_type: '1nope' }, 400, 'invalid_field'],
    [{ from_uid: 'a', to_uid: 'b', edge_type: 'Supports', weight: 3 }, 400, 'invalid_field'],
    [{ from_uid: 'a', to_uid: 'b', edge_type: 'Supports', props: { strength: 'max' } }, 400, 'invalid_props'],
    [{ from_uid: 'a', to_uid: 'b', edge_type: 'Supports', props: { colour: 1 } }, 422, 'unknown_props_fields'],
    [{ from_uid: 'a', to_uid: 'b', edge_type: 'Supports', props: { _type: 'Refutes' } }, 400, 'invalid_props'],
  ])('refuses %j with %d %s', async (body, status, code) => {
    const r = await c.post('/edge', body);
    expect([r.status, r.body.code]).toEqual([status, code]);
  });

  it('refuses missing or tombstoned endpoints with 404 naming the field, writing nothing', async () => {
    const a = await node('live', 'Claim');
    const dead = await node('dead', 'Claim');
    await c.delete(`/node/${dead.uid}`);
    const r1 = await c.post('/link', { from_uid: a.uid, to_uid: 'missing-node', edge_type: 'Supports' });
    expect(r1.status).toBe(404);
    expect(r1.body).toMatchObject({ code: 'not_found', field: 'to_uid', uid: 'missing-node' });
    const r2 = await c.post('/link', { from_uid: dead.uid, to_uid: a.uid, edge_type: 'Supports' });
    expect(r2.body).toMatchObject({ code: 'not_found', field: 'from_uid' });
    expect((await c.get(`/edges?from_uid=${a.uid}&include_tombstoned=true`)).body).toHaveLength(0);
  });

  it('patches weight and props, keeps type and endpoints immutable, and tombstones one edge', async () => {
    const a = await node('a', 'Claim');
    const b = await node('b', 'Claim');
    const e = (await c.post('/edge', { from_uid: a.uid, to_uid: b.uid, edge_type: 'Contradicts', props: { description: 'x' } })).body;
    const p = await c.patch(`/edge/${e.uid}`, { weight: 0.2, props: { resolution_status: 'resolved' }, expected_version: 1 });
    expect(p.body).toMatchObject({ version: 2, weight: 0.2, props: { description: 'x', resolution_status: 'resolved' } });
    expect((await c.patch(`/edge/${e.uid}`, { to_uid: a.uid })).body.code).toBe('immutable_field');
    expect((await c.patch(`/edge/${e.uid}`, { edge_type: 'Supports' })).body.code).toBe('immutable_field');
    expect((await c.patch(`/edge/${e.uid}`, { weight: 0.1, expected_version: 1 })).body).toMatchObject({ code: 'version_conflict', current_version: 2 });
    const d = await c.delete(`/edge/${e.uid}?reason=obsolete`);
    expect(d.body).toEqual({ uid: e.uid, tombstoned: true, version: 3 });
    expect((await c.delete(`/edge/${e.uid}`)).body).toEqual({ uid: e.uid, tombstoned: true, version: 3 });
    expect((await c.patch(`/edge/${e.uid}`, { weight: 0.3 })).body.code).toBe('tombstoned');
    const h = await c.get(`/edge/${e.uid}/history`);
    expect(h.body.map((v: any) => v.change_type)).toEqual(['create', 'update', 'tombstone']);
    expect(h.body[2].change_reason).toBe('obsolete');
    expect((await c.get(`/edges?from_uid=${a.uid}`)).body).toHaveLength(0);
    expect((await c.get(`/edges?to_uid=${b.uid}&include_tombstoned=true`)).body).toHaveLength(1);
    expect((await c.get('/edges')).body.code).toBe('missing_field');
  });

  it('returns live edges among a set of nodes', async () => {
    const [x, y, z] = [await node('x', 'Task'), await node('y', 'Task'), await node('z', 'Task')];
    await c.post('/link', { from_uid: x.uid, to_uid: y.uid, edge_type: 'DependsOn' });
    await c.post('/link', { from_uid: y.uid, to_uid: z.uid, edge_type: 'DependsOn' });
    await c.post('/link', { from_uid: x.uid, to_uid: y.uid, edge_type: 'Blocks' });
    const r = await c.post('/edges/batch', { uids: [x.uid, y.uid] });
    expect(r.status).toBe(200);
    expect(r.body.map((e: any) => e.edge_type).sort()).toEqual(['Blocks', 'DependsOn']);
    const typed = await c.post('/edges/batch', { uids: [x.uid, y.uid, z.uid], edge_types: ['depends_on'] });
    expect(typed.body).toHaveLength(2);
  });
});

describe('POST /batch', () => {
  let app: TestApp;
  let c: Api;
  beforeAll(async () => {
    app = await startTestApp();
    const owner = await signUp(app.url);
    c = api(app.url, owner.access_token);
  });
  afterAll(() => app.close());

  it('creates nodes and edges together, resolving refs, in input order', async () => {
    const existing = (await c.post('/node', { label: 'root goal', node_type: 'Goal' })).body;
    const r = await c.post('/batch', {
      agent_id: 'importer',
      nodes: [
        { ref: 'task', label: 'Write docs', node_type: 'Task' },
        { ref: 'plan', label: 'Docs plan', node_type: 'Plan', props: { step_count: 0 } },
        { label: 'loose', node_type: 'Journal' },
      ],
      edges: [
        { from_ref: 'task', to_uid: existing.uid, edge_type: 'Targets', weight: 0.7 },
        { from_ref: 'plan', to_ref: 'task', edge_type: 'PlannedBy', props: {} },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ nodes_added: 3, edges_added: 2 });
    expect(r.body.node_uids).toHaveLength(3);
    expect(r.body.refs).toEqual({ task: r.body.node_uids[0], plan: r.body.node_uids[1] });
    const task = (await c.get(`/node/${r.body.refs.task}`)).body;
    expect(task).toMatchObject({ label: 'Write docs', agent_id: 'importer' });
    const edges = (await c.get(`/edges?from_uid=${r.body.refs.task}`)).body;
    expect(edges).toEqual([expect.objectContaining({ to_uid: existing.uid, edge_type: 'Targets', weight: 0.7, agent_id: 'importer' })]);
  });

  it('is all or nothing: the first failing item decides the answer and names its index', async () => {
    const count = async () => (await c.get('/nodes?limit=1000')).body.items.length;
    const before = await count();
    const bad1 = await c.post('/batch', { nodes: [{ label: 'ok', node_type: 'Task' }, { label: 'bad', node_type: 'Task', props: { nope: 1 } }] });
    expect(bad1.status).toBe(422);
    expect(bad1.body).toMatchObject({ code: 'unknown_props_fields', index: 'nodes[1]' });
    const bad2 = await c.post('/batch', { nodes: [{ ref: 'a', label: 'ok', node_type: 'Task' }], edges: [{ from_ref: 'a', to_uid: 'ghost', edge_type: 'DependsOn' }] });
    expect(bad2.status).toBe(404);
    expect(bad2.body).toMatchObject({ code: 'not_found', index: 'edges[0].to_uid' });
    const bad3 = await c.post('/batch', { nodes: [{ ref: 'a', label: 'x', node_type: 'Task' }, { ref: 'a', label: 'y', node_type: 'Task' }] });
    expect(bad3.body.code).toBe('invalid_field');
    const bad4 = await c.post('/batch', { nodes: Array.from({ length: 1001 }, (_, i) => ({ label: `n${i}`, node_type: 'Task' })) });
    expect(bad4.body).toMatchObject({ code: 'invalid_field', field: 'nodes' });
    const bad5 = await c.post('/batch', { edges: [{ from_ref: 'zz', to_uid: 'a', edge_type: 'DependsOn' }] });
    expect(bad5.body).toMatchObject({ code: 'invalid_field', index: 'edges[0].from_ref' });
    expect(await count()).toBe(before);
  });
});
