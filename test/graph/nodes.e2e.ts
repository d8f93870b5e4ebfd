import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';

describe('generic node routes', () => {
  let app: TestApp;
  let c: Api;
  let token: string;

  beforeAll(async () => {
    app = await startTestApp();
    const owner = await signUp(app.url);
    const key = await createApiKey(app.url, owner.access_token, { scopes: ['read', 'write'] });
    token = key.key;
    c = api(app.url, token);
  });
  afterAll(() => app.close());

  it('creates a node with typed props in output form and a derived summary', async () => {
    const r = await c.post('/node', { label: '  Water boils at 100C ', node_type: 'claim', props: { content: 'At sea level water boils at 100 C', certainty_degree: 0.9 } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      label: 'Water boils at 100C',
      node_type: 'Claim',
      layer: 'epistemic',
      summary: 'At sea level water boils at 100 C',
      confidence: 1,
      salience: 0.5,
      privacy_level: 'private',
      version: 1,
      tombstone_at: null,
      agent_id: null,
    });
    expect(r.body.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.body.props).toMatchObject({ _type: 'Claim', content: 'At sea level water boils at 100 C', certainty_degree: 0.9, claim_type: null, unit: null });
    const got = await c.get(`/node/${r.body.uid}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(r.body);
  });

  it('counts a label in characters, so 1000 emoji fit and 1001 do not', async () => {
    const fits = await c.post('/node', { label: '😀'.repeat(1000), node_type: 'Concept' });
    expect(fits.status).toBe(201);
    expect(fits.body.label).toBe('😀'.repeat(1000));
    const over = await c.post('/node', { label: '😀'.repeat(1001), node_type: 'Concept' });
    expect([over.status, over.body.code, over.body.field]).toEqual([400, 'invalid_field', 'label']);
  });

  it('infers the type from props._type and accepts every spelling of a built-in', async () => {
    const a = await c.post('/node', { label: 'Q', props: { _type: 'open_question', text: 'why?' } });
    expect(a.status).toBe(201);
    expect(a.body.node_type).toBe('OpenQuestion');
    const b = await c.post('/node', { label: 'Custom', node_type: 'research_topic', layer: 'intent', props: { anything: [1, 2] } });
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({ node_type: 'ResearchTopic', layer: 'intent', props: { _type: 'ResearchTopic', anything: [1, 2] } });
  });

  it('names both node types as they are emitted when props._type contradicts node_type', async () => {
    const r = await c.post('/node', { label: 'x', node_type: 'open_question', props: { _type: 'research_topic' } });
    expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_props', 'props._type']);
    expect(r.body.error).toBe("props._type 'ResearchTopic' contradicts node_type 'OpenQuestion'");
  });

  it('keeps a null a client sends in the free-form props of a custom type, on /node and /batch', async () => {
    const one = await c.post('/node', { label: 'Widget', node_type: 'widget', props: { retired_at: null, size: 2 } });
    expect(one.status).toBe(201);
    expect(one.body.props).toEqual({ _type: 'Widget', retired_at: null, size: 2 });
    expect((await c.get(`/node/${one.body.uid}`)).body.props).toEqual({ _type: 'Widget', retired_at: null, size: 2 });
    const batch = await c.post('/batch', { nodes: [{ label: 'Widget 2', node_type: 'Widget', props: { retired_at: null } }] });
    expect(batch.status).toBe(201);
    expect((await c.get(`/node/${batch.body.node_uids[0]}`)).body.props).toEqual({ _type: 'Widget', retired_at: null });
  });

  it.each([
    [{}, 400, 'missing_field'],
    [{ label: '   ', node_type: 'Goal' }, 400, 'missing_field'],
    [{ label: 'x' }, 400, 'missing_field'],
    [{ label: 7, node_type: 'Goal' }, 400, 'invalid_field'],
    [{ label: 'x', node_type: 'Goal', confidence: 1.5 }, 400, 'invalid_field'],
    [{ label: 'x', node_type: 'Goal', salience: -0.1 }, 400, 'invalid_field'],
    [{ label: 'x', node_type: 'Goal', privacy_level: 'secret' }, 400, 'invalid_field'],
    [{ label: 'x', node_type: 'Goal', props: [] }, 400, 'invalid_props'],
    [{ label: 'x', node_type: 'Goal', props: { progress: 'half' } }, 400, 'invalid_props'],
    [{ label: 'x', node_type: 'Goal', props: { progress: 2 } }, 400, 'invalid_props'],
    [{ label: 'x', node_type: 'Goal', props: { status: 'dreaming' } }, 400, 'invalid_props'],
    [{ label: 'x', node_type: 'Goal', props: { _type: 'Task' } }, 400, 'invalid_props'],
    [{ label: 'x', node_type: 'Goal', props: { colour: 'red', mood: 1 } }, 422, 'unknown_props_fields'],
    [{ label: 'x', node_type: '9lives' }, 400, 'invalid_field'],
  ])('refuses bad input %j with %d %s and writes nothing', async (body, status, code) => {
    const before = (await c.get('/nodes?limit=1000')).body.items.length;
    const r = await c.post('/node', body);
    expect(r.status).toBe(status);
    expect(r.body.code).toBe(code);
    expect(typeof r.body.error).toBe('string');
    expect((await c.get('/nodes?limit=1000')).body.items.length).toBe(before);
  });

  it('names the unknown and the valid fields on 422', async () => {
    const r = await c.post('/node', { label: 'x', node_type: 'Goal', props: { colour: 'red' } });
    expect(r.body.unknown_fields).toEqual(['colour']);
    expect(r.body.valid_fields).toContain('description');
    expect(r.body.error).toMatch(/^unknown fields for Goal: colour\. Valid fields: /);
  });

  it('pages history by from_version and limit, and by size when every version carries a large record', async () => {
    const n = (await c.post('/node', { label: 'Paged', node_type: 'Claim' })).body;
    for (let i = 0; i < 4; i++) expect((await c.patch(`/node/${n.uid}`, { confidence: 0.1 * (i + 1) })).status).toBe(200);
    const versions = async (q: string, path = `/node/${n.uid}/history`) => (await c.get(path + q)).body.map((v: { version: number }) => v.version);
    expect(await versions('')).toEqual([1, 2, 3, 4, 5]);
    expect(await versions('?limit=2')).toEqual([1, 2]);
    expect(await versions('?from_version=3&limit=2')).toEqual([3, 4]);
    expect(await versions('?from_version=9')).toEqual([]);
    expect((await c.post('/evolve', { action: 'history', uid: n.uid, from_version: 4 })).body.map((v: { version: number }) => v.version)).toEqual([4, 5]);
    expect(await versions('?limit=0')).toEqual([]);
    for (const q of ['?limit=-1', '?from_version=0', '?limit=x']) expect((await c.get(`/node/${n.uid}/history${q}`)).body.code).toBe('invalid_field');
    expect((await c.get('/node/00000000-0000-4000-8000-00000000beef/history?from_version=2')).status).toBe(404);

    // 3 MB of props: 16 MB per page holds five versions, the next page goes on from there
    const big = (await c.post('/node', { label: 'Big', node_type: 'Claim', props: { content: 'x'.repeat(3_000_000) } })).body;
    for (let i = 0; i < 7; i++) expect((await c.patch(`/node/${big.uid}`, { confidence: 0.1 * (i + 1) })).status).toBe(200);
    const first = await versions('', `/node/${big.uid}/history`);
    expect(first.length).toBeGreaterThan(0);
    expect(first.length).toBeLessThan(8);
    const rest = await versions(`?from_version=${first[first.length - 1] + 1}`, `/node/${big.uid}/history`);
    expect([...first, ...rest]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // eight 3 MB writes, each embedded by the offline embedder, which runs ~15× slower inside
    // jest's module sandbox than in the service: more than the default e2e budget on a slow machine
  }, 120_000);

  it('patches props by shallow merge, bumps the version, keeps history and snapshots', async () => {
    const n = (await c.post('/node', { label: 'Ship v1', node_type: 'Goal', props: { description: 'ship it', success_criteria: ['a'] } })).body;
    const p1 = await c.patch(`/node/${n.uid}`, { props: { progress: 0.5 }, reason: 'half way' });
    expect(p1.status).toBe(200);
    expect(p1.body).toMatchObject({ version: 2, props: { description: 'ship it', progress: 0.5, success_criteria: ['a'] } });
    const p2 = await c.patch(`/node/${n.uid}`, { label: 'Ship v1.0', props: { success_criteria: null }, expected_version: 2 });
    expect(p2.body).toMatchObject({ version: 3, label: 'Ship v1.0', props: { success_criteria: [] } });
    const stale = await c.patch(`/node/${n.uid}`, { label: 'x', expected_version: 2 });
    expect(stale.status).toBe(409);
    expect(stale.body).toMatchObject({ code: 'version_conflict', current_version: 3 });
    const h = await c.get(`/node/${n.uid}/history`);
    expect(h.body.map((v: any) => [v.version, v.change_type, v.change_reason])).toEqual([
      [1, 'create', null],
      [2, 'update', 'half way'],
      [3, 'update', null],
    ]);
    expect(h.body[0].changed_by).toBeTruthy();
    expect((await c.get(`/node/${n.uid}/history/2`)).body).toMatchObject({ version: 2, label: 'Ship v1', props: { progress: 0.5 } });
    expect((await c.get(`/node/${n.uid}/history/9`)).status).toBe(404);
    expect((await c.get(`/node/${n.uid}/history/zero`)).body.code).toBe('invalid_field');
    const bad = await c.patch(`/node/${n.uid}`, { props: { _type: 'Task' } });
    expect(bad.body.code).toBe('invalid_props');
  });

  it('tombstones with cascade, refuses direct mutation, and is idempotent', async () => {
    const a = (await c.post('/node', { label: 'A', node_type: 'Claim' })).body;
    const b = (await c.post('/node', { label: 'B', node_type: 'Evidence' })).body;
    const e = (await c.post('/link', { from_uid: b.uid, to_uid: a.uid, edge_type: 'SUPPORTS' })).body;
    const d = await c.delete(`/node/${a.uid}?reason=wrong`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({ uid: a.uid, tombstoned: true, version: 2, edges_tombstoned: 1 });
    const again = await c.delete(`/node/${a.uid}`);
    expect(again.body).toMatchObject({ tombstoned: true, version: 2, edges_tombstoned: 0 });
    const got = (await c.get(`/node/${a.uid}`)).body;
    expect(got).toMatchObject({ tombstone_reason: 'wrong', version: 2 });
    expect(got.tombstone_at).toEqual(expect.any(Number));
    expect((await c.get(`/edge/${e.uid}/history`)).body.at(-1)).toMatchObject({ change_type: 'tombstone', change_reason: `cascade:${a.uid}` });
    expect((await c.patch(`/node/${a.uid}`, { label: 'x' })).body.code).toBe('tombstoned');
    expect((await c.post('/link', { from_uid: b.uid, to_uid: a.uid, edge_type: 'Supports' })).status).toBe(404);
    const list = (await c.get('/nodes?limit=1000')).body.items.map((n: any) => n.uid);
    expect(list).not.toContain(a.uid);
    const withTomb = (await c.get('/nodes?limit=1000&include_tombstoned=true')).body.items.map((n: any) => n.uid);
    expect(withTomb).toContain(a.uid);
  });

  it('lists newest first with filters and exact has_more; clamps and validates paging', async () => {
    for (let i = 0; i < 3; i++) await c.post('/node', { label: `Paged ${i}`, node_type: 'Milestone', agent_id: 'pager' });
    const p = await c.get('/nodes?type=milestone&limit=2');
    expect(p.body).toMatchObject({ has_more: true, limit: 2, offset: 0 });
    expect(p.body.items.map((n: any) => n.label)).toEqual(['Paged 2', 'Paged 1']);
    const p2 = await c.get('/nodes?type=Milestone&limit=2&offset=2');
    expect(p2.body).toMatchObject({ has_more: false });
    expect(p2.body.items.map((n: any) => n.label)).toEqual(['Paged 0']);
    expect((await c.get('/nodes?limit=5000')).body.limit).toBe(1000);
    expect((await c.get('/nodes?limit=-1')).body.code).toBe('invalid_field');
    expect((await c.get('/nodes?limit=1.5')).body.code).toBe('invalid_field');
    expect((await c.get('/nodes?layer=nowhere')).body.code).toBe('invalid_field');
    expect((await c.get('/nodes?label_contains=PAGED%201')).body.items.map((n: any) => n.label)).toEqual(['Paged 1']);
    const byAgent = await c.get('/agent/pager/nodes?limit=10');
    expect(byAgent.body.items).toHaveLength(3);
    expect(byAgent.body.has_more).toBe(false);
    expect((await c.get('/nodes?agent=pager&limit=10')).body.items).toHaveLength(3);
  });

  it('validates the type and privacy_level filters as every other route does (400 invalid_field naming the field)', async () => {
    for (const [query, field] of [
      ['type=1bad', 'type'],
      ['node_type=%21%21', 'node_type'],
      ['type=Goal,1bad', 'type'],
      ['privacy_level=zzz', 'privacy_level'],
      ['privacy_level=PUBLIC', 'privacy_level'],
    ]) {
      const r = await c.get(`/nodes?${query}`);
      expect([query, r.status, r.body.code, r.body.field]).toEqual([query, 400, 'invalid_field', field]);
    }
    // good values still filter: spellings of a built-in, lists, repeated parameters, each privacy level
    const goal = (await c.post('/node', { label: 'Filter goal', node_type: 'Goal', privacy_level: 'public' })).body;
    const risk = (await c.post('/node', { label: 'Filter risk', node_type: 'Risk' })).body;
    const uids = async (q: string) => (await c.get(`/nodes?limit=1000&${q}`)).body.items.map((n: any) => n.uid);
    expect(await uids('node_type=goal')).toContain(goal.uid);
    expect(await uids('type=Goal,Risk')).toEqual(expect.arrayContaining([goal.uid, risk.uid]));
    expect(await uids('type=Goal&type=Risk')).toEqual(expect.arrayContaining([goal.uid, risk.uid]));
    expect(await uids('privacy_level=public')).toEqual([goal.uid]);
    expect(await uids('privacy_level=private')).toContain(risk.uid);
    expect(await uids('privacy_level=shared')).toEqual([]);
  });

  it('fetches many by uid in input order and deletes by selectors', async () => {
    const x = (await c.post('/node', { label: 'X', node_type: 'Task', agent_id: 'sweeper' })).body;
    const y = (await c.post('/node', { label: 'Y', node_type: 'Task', agent_id: 'sweeper' })).body;
    const b = await c.post('/nodes/batch', { uids: [y.uid, 'nope', x.uid] });
    expect(b.status).toBe(200);
    expect(b.body.nodes.map((n: any) => n.uid)).toEqual([y.uid, x.uid]);
    expect(b.body.missing).toEqual(['nope']);
    expect((await c.post('/nodes/delete', {})).body.code).toBe('missing_field');
    // selectors that select nothing in particular would tombstone the whole graph
    for (const filter of [{}, { label_contains: '  ' }, { prop_equals: {} }, { node_types: [] }]) {
      const r = await c.post('/nodes/delete', { filter });
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'missing_field', 'filter']);
      expect((await c.post('/nodes/delete', { filter, dry_run: true })).status).toBe(400);
    }
    // a type name no type can have is refused like on every other route, naming the field
    for (const [filter, field] of [[{ node_type: '1bad' }, 'filter.node_type'], [{ node_types: ['Task', '!!'] }, 'filter.node_types[1]']] as const) {
      const r = await c.post('/nodes/delete', { filter });
      expect([r.status, r.body.code, r.body.field]).toEqual([400, 'invalid_field', field]);
    }
    expect((await c.get(`/node/${x.uid}`)).body.tombstone_at).toBeNull();
    const dry = await c.post('/nodes/delete', { agent_id: 'sweeper', dry_run: true });
    expect(dry.body).toMatchObject({ matched: 2, nodes_tombstoned: 0 });
    const del = await c.post('/nodes/delete', { agent_id: 'sweeper', filter: { node_type: 'task' }, uids: [x.uid, 'ghost'] });
    expect(del.body).toMatchObject({ matched: 1, nodes_tombstoned: 1, missing: ['ghost'] });
    expect((await c.get(`/node/${x.uid}`)).body.tombstone_at).not.toBeNull();
    expect((await c.get(`/node/${y.uid}`)).body.tombstone_at).toBeNull();
  });

  it('answers malformed uids and unknown nodes with 400 and 404', async () => {
    expect((await c.get('/node/bad%20uid')).body.code).toBe('invalid_uid');
    expect((await c.get('/node/no-such-node')).status).toBe(404);
    expect((await c.patch('/node/no-such-node', { label: 'x' })).status).toBe(404);
    expect((await c.delete('/node/no-such-node')).status).toBe(404);
    expect((await c.get('/node/no-such-node/history')).status).toBe(404);
  });

  it('refuses malformed JSON, non-object roots and other media types', async () => {
    const raw = await fetch(`${app.url}/node`, { method: 'POST', headers: { authorization: (await bearer()), 'content-type': 'application/json' }, body: '{"label":' });
    expect(raw.status).toBe(400);
    expect(((await raw.json()) as { code: string }).code).toBe('invalid_json');
    const arr = await fetch(`${app.url}/node`, { method: 'POST', headers: { authorization: await bearer(), 'content-type': 'application/json' }, body: '[1,2]' });
    expect(((await arr.json()) as { code: string }).code).toBe('invalid_json');
    const txt = await fetch(`${app.url}/node`, { method: 'POST', headers: { authorization: await bearer(), 'content-type': 'text/plain' }, body: 'label=x' });
    expect(txt.status).toBe(415);
    expect(((await txt.json()) as { code: string }).code).toBe('unsupported_media_type');
    const big = await fetch(`${app.url}/node`, { method: 'POST', headers: { authorization: await bearer(), 'content-type': 'application/json' }, body: JSON.stringify({ label: 'x'.repeat(11 * 1024 * 1024) }) });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { code: string }).code).toBe('payload_too_large');
  });

  it('answers unknown routes 404 and wrong methods 405 with Allow, with a request id', async () => {
    const r = await c.get('/no/such/route');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('route_not_found');
    const m = await c.put('/node/abc', {});
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('DELETE, GET, PATCH');
    expect(r.headers.get('x-request-id')).toBeTruthy();
    const echoed = await c.get('/health', { headers: { 'x-request-id': 'req-42' } });
    expect(echoed.headers.get('x-request-id')).toBe('req-42');
  });

  async function bearer(): Promise<string> {
    return `Bearer ${token}`;
  }
});
