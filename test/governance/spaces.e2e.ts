import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey, signUp, SignedUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** An organization with an owner, an admin, a member and a viewer, each with a JWT client. */
async function team(t: TestApp) {
  const owner = await signUp(t.url);
  const o = api(t.url, owner.access_token);
  const join = async (role: string) => {
    const u = await signUp(t.url);
    const r = await o.post(`/v1/orgs/${owner.org_id}/members`, { email: u.email, role });
    if (r.status >= 300) throw new Error(`add member: ${r.status} ${r.text}`);
    return { user: u, c: api(t.url, u.access_token, { org: owner.org_id }) };
  };
  const admin = await join('admin');
  const member = await join('member');
  const viewer = await join('viewer');
  return { owner, o, admin, member, viewer };
}

async function space(o: Api, label: string, props: Record<string, unknown> = {}): Promise<string> {
  const r = await o.post('/node', { label, node_type: 'Space', props });
  if (r.status !== 201) throw new Error(`space: ${r.status} ${r.text}`);
  return r.body.uid;
}

describe('Spaces and classification (REFERENCE §13.1–13.2)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('a Space is an agent-layer node only the owner writes; its name defaults to the label', async () => {
    const { o, admin, member, owner } = await team(t);
    const r = await o.post('/node', { label: 'Legal', node_type: 'Space', props: { default_classification: 'confidential' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ node_type: 'Space', layer: 'agent', classification: 'internal' });
    expect(r.body.props).toMatchObject({ name: 'Legal', default_classification: 'confidential', description: null });
    expect((await admin.c.post('/node', { label: 'x', node_type: 'Space' })).body).toMatchObject({ code: 'insufficient_role' });
    expect((await member.c.post('/node', { label: 'x', node_type: 'Space' })).status).toBe(403);
    const key = await createApiKey(t.url, owner.access_token);
    const byKey = await api(t.url, key.key).post('/node', { label: 'x', node_type: 'Space' });
    expect([byKey.status, byKey.body.code]).toEqual([403, 'api_key_not_allowed']);
    expect((await admin.c.patch(`/node/${r.body.uid}`, { label: 'Legal 2' })).body.code).toBe('insufficient_role');
    expect((await api(t.url, key.key).delete(`/node/${r.body.uid}`)).body.code).toBe('api_key_not_allowed');
    // nothing changed
    expect((await o.get(`/node/${r.body.uid}`)).body).toMatchObject({ label: 'Legal', version: 1, tombstone_at: null });
    const bad = await o.post('/node', { label: 'x', node_type: 'Space', props: { default_classification: 'secret' } });
    expect(bad.status).toBe(400);
  });

  it('classification: default internal, ordered levels, anything else 400 invalid_field', async () => {
    const { o } = await team(t);
    const n = await o.post('/node', { label: 'c', node_type: 'Concept' });
    expect(n.body.classification).toBe('internal');
    const bad = await o.post('/node', { label: 'c', node_type: 'Concept', classification: 'secret' });
    expect([bad.status, bad.body.code, bad.body.field]).toEqual([400, 'invalid_field', 'classification']);
    const p = await o.patch(`/node/${n.body.uid}`, { classification: 'top' });
    expect([p.status, p.body.code]).toEqual([400, 'invalid_field']);
  });

  it('space_uid places a new node in the Space in the same transaction, with the Space default classification', async () => {
    const { o } = await team(t);
    const s = await space(o, 'Finance', { default_classification: 'confidential' });
    const n = await o.post('/node', { label: 'Q3 forecast', node_type: 'Concept', space_uid: s });
    expect(n.status).toBe(201);
    expect(n.body.classification).toBe('confidential');
    const edges = await o.get(`/edges?from_uid=${n.body.uid}&edge_type=InSpace`);
    expect(edges.body.map((e: any) => [e.to_uid, e.edge_type])).toEqual([[s, 'InSpace']]);
    const explicit = await o.post('/node', { label: 'Public note', node_type: 'Concept', space_uid: s, classification: 'public' });
    expect(explicit.body.classification).toBe('public');
    // cognitive calls take space_uid too
    const c = await o.post('/epistemic/argument', { claim: { label: 'Revenue grows', props: { content: 'Revenue grows' } }, space_uid: s });
    expect(c.status).toBe(201);
    const claims = (await o.get('/nodes?node_type=Claim')).body.items;
    expect(claims.map((n: any) => [n.label, n.classification])).toEqual([['Revenue grows', 'confidential']]);
    expect((await o.get(`/edges?from_uid=${claims[0].uid}&edge_type=InSpace`)).body).toHaveLength(1);
    // a missing, tombstoned or non-Space space_uid writes nothing
    const missing = await o.post('/node', { label: 'x', node_type: 'Concept', space_uid: '00000000-0000-4000-8000-000000000000' });
    expect([missing.status, missing.body.code, missing.body.field]).toEqual([404, 'not_found', 'space_uid']);
    const wrong = await o.post('/node', { label: 'x', node_type: 'Concept', space_uid: n.body.uid });
    expect([wrong.status, wrong.body.code]).toEqual([400, 'wrong_node_type']);
  });

  it('/batch takes space_uid at the top level or per node; a bad per-node Space writes nothing', async () => {
    const { o } = await team(t);
    const a = await space(o, 'Batch A', { default_classification: 'restricted' });
    const b = await space(o, 'Batch B', { default_classification: 'public' });
    const r = await o.post('/batch', { space_uid: a, nodes: [{ label: 'top', node_type: 'Concept' }, { label: 'own', node_type: 'Concept', space_uid: b }] });
    expect(r.status).toBe(201);
    const [top, own] = r.body.node_uids;
    const placed = async (uid: string) => (await o.get(`/edges?from_uid=${uid}&edge_type=InSpace`)).body.map((e: any) => e.to_uid);
    expect(await placed(top)).toEqual([a]);
    expect(await placed(own)).toEqual([b]);
    expect((await o.get(`/node/${top}`)).body.classification).toBe('restricted');
    expect((await o.get(`/node/${own}`)).body.classification).toBe('public');
    const before = (await o.get('/nodes?limit=1000')).body.items.length;
    const concept = top;
    const bad = await o.post('/batch', { nodes: [{ label: 'ok', node_type: 'Concept' }, { label: 'bad', node_type: 'Concept', space_uid: concept }] });
    expect([bad.status, bad.body.code, bad.body.field, bad.body.index]).toEqual([400, 'wrong_node_type', 'nodes[1].space_uid', 'nodes[1].space_uid']);
    const missing = await o.post('/batch', { nodes: [{ label: 'ok', node_type: 'Concept' }, { label: 'bad', node_type: 'Concept', space_uid: 'no-such-space' }] });
    expect([missing.status, missing.body.code, missing.body.index]).toEqual([404, 'not_found', 'nodes[1].space_uid']);
    expect((await o.get('/nodes?limit=1000')).body.items.length).toBe(before);
  });

  it('find-or-create matches only an entity in the same Spaces', async () => {
    const { o } = await team(t);
    const s = await space(o, 'Entities');
    const open = await o.post('/reality/entity', { action: 'create', label: 'Acme Corp', props: { entity_type: 'organization' } });
    expect(open.status).toBe(201);
    const inS = await o.post('/reality/entity', { action: 'create', label: 'Acme Corp', space_uid: s, props: { entity_type: 'organization' } });
    expect([inS.status, inS.body.created]).toEqual([201, true]);
    expect(inS.body.uid).not.toBe(open.body.uid);
    const again = await o.post('/reality/entity', { action: 'create', label: 'acme corp', space_uid: s, props: { entity_type: 'organization' } });
    expect([again.status, again.body.uid, again.body.created]).toEqual([200, inS.body.uid, false]);
    const unspaced = await o.post('/reality/entity', { action: 'create', label: 'ACME corp', props: { entity_type: 'organization' } });
    expect([unspaced.status, unspaced.body.uid]).toEqual([200, open.body.uid]);
  });

  it('an InSpace edge must go from a non-Space to a Space (400 wrong_node_type)', async () => {
    const { o } = await team(t);
    const s = await space(o, 'Ops');
    const s2 = await space(o, 'Ops 2');
    const n = (await o.post('/node', { label: 'n', node_type: 'Concept' })).body.uid;
    const m = (await o.post('/node', { label: 'm', node_type: 'Concept' })).body.uid;
    expect((await o.post('/edge', { from_uid: n, to_uid: m, edge_type: 'InSpace' })).body.code).toBe('wrong_node_type');
    expect((await o.post('/edge', { from_uid: s2, to_uid: s, edge_type: 'InSpace' })).body.code).toBe('wrong_node_type');
    expect((await o.post('/edge', { from_uid: n, to_uid: s, edge_type: 'InSpace' })).status).toBe(201);
  });

  it('a new Space cannot be placed in a Space with space_uid (400 wrong_node_type), and nothing is written', async () => {
    const { o, admin } = await team(t);
    const s = await space(o, 'Outer');
    const before = (await o.get('/nodes?node_type=Space&limit=1000')).body.items.length;
    const r = await o.post('/node', { label: 'Inner', node_type: 'Space', space_uid: s });
    expect([r.status, r.body.code, r.body.field]).toEqual([400, 'wrong_node_type', 'space_uid']);
    const top = await o.post('/batch', { space_uid: s, nodes: [{ label: 'note', node_type: 'Concept' }, { label: 'Inner', node_type: 'Space' }] });
    expect([top.status, top.body.code, top.body.field]).toEqual([400, 'wrong_node_type', 'space_uid']);
    const own = await o.post('/batch', { nodes: [{ label: 'note', node_type: 'Concept' }, { label: 'Inner', node_type: 'Space', space_uid: s }] });
    expect([own.status, own.body.code, own.body.field, own.body.index]).toEqual([400, 'wrong_node_type', 'nodes[1].space_uid', 'nodes[1].space_uid']);
    expect((await o.get('/nodes?node_type=Space&limit=1000')).body.items.length).toBe(before);
    expect((await o.get('/nodes?node_type=Concept&limit=1000')).body.items.map((n: any) => n.label)).not.toContain('note');
    // a caller who may not write Space nodes at all still hears that first
    expect((await admin.c.post('/node', { label: 'Inner', node_type: 'Space', space_uid: s })).body.code).toBe('insufficient_role');
  });

  it('grant routes: owner JWT only, 201 new / 200 replaced / 404 unknown, validated, listed and revoked', async () => {
    const { o, owner, admin, member } = await team(t);
    const s = await space(o, 'HR');
    const url = `/v1/spaces/${s}/grants`;
    const first = await o.post(url, { principal_uid: `user:${member.user.user_id}`, access: 'read' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ space_uid: s, principal_uid: `user:${member.user.user_id}`, access: 'read', classification_ceiling: null, granted_by: owner.user_id });
    expect(first.body.granted_at).toMatch(/Z$/);
    clock.advance(5);
    const again = await o.post(url, { principal_uid: `user:${member.user.user_id}`, access: 'write', classification_ceiling: 'confidential' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ access: 'write', classification_ceiling: 'confidential', granted_at: first.body.granted_at });
    expect(again.body.updated_at).not.toBe(first.body.granted_at);

    for (const [body, status, code] of [
      [{ principal_uid: 'bob', access: 'read' }, 400, 'invalid_field'],
      [{ principal_uid: 'api_key:k1', access: 'read' }, 400, 'invalid_field'],
      [{ principal_uid: `user:${member.user.user_id}`, access: 'admin' }, 400, 'invalid_field'],
      [{ access: 'read' }, 400, 'missing_field'],
      [{ principal_uid: `user:${member.user.user_id}`, access: 'read', classification_ceiling: 'secret' }, 400, 'invalid_field'],
      [{ principal_uid: 'user:nobody-here', access: 'read' }, 404, 'not_found'],
      [{ principal_uid: 'agent:never-seen', access: 'read' }, 404, 'not_found'],
    ] as const) {
      const r = await o.post(url, body);
      expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), status, code]);
    }
    const notSpace = (await o.post('/node', { label: 'n', node_type: 'Concept' })).body.uid;
    expect((await o.post(`/v1/spaces/${notSpace}/grants`, { principal_uid: `user:${member.user.user_id}`, access: 'read' })).body.code).toBe('wrong_node_type');
    expect((await o.post('/v1/spaces/00000000-0000-4000-8000-000000000000/grants', { principal_uid: `user:${member.user.user_id}`, access: 'read' })).status).toBe(404);
    // an agent known through a bound key can be granted
    await createApiKey(t.url, owner.access_token, { agent_id: 'scout' });
    expect((await o.post(url, { principal_uid: 'agent:scout', access: 'read', classification_ceiling: 'public' })).status).toBe(201);

    // Owner JWT only
    expect((await admin.c.get('/v1/spaces')).body.code).toBe('insufficient_role');
    expect((await admin.c.post(url, { principal_uid: 'agent:scout', access: 'write' })).body.code).toBe('insufficient_role');
    const key = await createApiKey(t.url, owner.access_token);
    expect((await api(t.url, key.key).get(url)).body.code).toBe('api_key_not_allowed');

    const list = await o.get(url);
    expect(list.body).toMatchObject({ has_more: false, limit: 100, offset: 0 });
    expect(list.body.items.map((g: any) => g.principal_uid)).toEqual([`user:${member.user.user_id}`, 'agent:scout']);
    const spaces = await o.get('/v1/spaces');
    expect(spaces.body.items.find((x: any) => x.uid === s)).toMatchObject({ name: 'HR', label: 'HR', default_classification: 'internal', grant_count: 2, tombstone_at: null });

    const del = await o.delete(`${url}/agent:scout`);
    expect([del.status, del.body]).toEqual([200, { space_uid: s, principal_uid: 'agent:scout', revoked: true }]);
    expect((await o.delete(`${url}/agent:scout`)).status).toBe(404);
    expect((await o.get(url)).body.items).toHaveLength(1);
  });

  it('GET /v1/spaces counts nodes per classification and lists tombstoned Spaces on request', async () => {
    const { o } = await team(t);
    const s = await space(o, 'Counted');
    for (const c of ['public', 'internal', 'internal', 'restricted']) await o.post('/node', { label: c, node_type: 'Concept', space_uid: s, classification: c });
    clock.advance(1); // created_at asc: the second Space is the newer one
    const gone = await space(o, 'Gone');
    await o.delete(`/node/${gone}`);
    const r = await o.get('/v1/spaces');
    expect(r.body.items.map((x: any) => x.uid)).toEqual([s]);
    expect(r.body.items[0].node_counts).toEqual({ public: 1, internal: 2, confidential: 0, restricted: 1, total: 4 });
    const all = await o.get('/v1/spaces?include_tombstoned=true');
    expect(all.body.items.map((x: any) => x.uid)).toEqual([s, gone]);
    expect(all.body.items[1].tombstone_at).toMatch(/Z$/);
  });

  it('members see a spaced node only through a grant whose ceiling admits it, and write only with write access', async () => {
    const { o, member, viewer } = await team(t);
    const s = await space(o, 'Board');
    const secret = (await o.post('/node', { label: 'Merger plan', node_type: 'Concept', space_uid: s, classification: 'confidential' })).body.uid;
    const open = (await o.post('/node', { label: 'Open note', node_type: 'Concept' })).body.uid;
    const edge = (await o.post('/edge', { from_uid: open, to_uid: secret, edge_type: 'RelatedTo' })).body.uid;
    const m = member.c;
    // no grant: absent, with every edge touching it
    expect((await m.get(`/node/${secret}`)).status).toBe(404);
    expect((await m.get(`/node/${open}`)).status).toBe(200);
    expect((await m.get('/nodes')).body.items.map((n: any) => n.uid)).not.toContain(secret);
    expect((await m.get(`/edges?from_uid=${open}`)).body).toEqual([]);
    expect((await m.get(`/edge/${edge}/history`)).status).toBe(404);
    expect((await m.patch(`/node/${secret}`, { label: 'x' })).status).toBe(404);
    // a read grant below the node's level: still absent
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `user:${member.user.user_id}`, access: 'read', classification_ceiling: 'internal' });
    expect((await m.get(`/node/${secret}`)).status).toBe(404);
    // at its level: readable, not writable
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `user:${member.user.user_id}`, access: 'read', classification_ceiling: 'confidential' });
    expect((await m.get(`/node/${secret}`)).status).toBe(200);
    expect((await m.get(`/edges?from_uid=${open}`)).body.map((e: any) => e.uid)).toEqual([edge]);
    const w = await m.patch(`/node/${secret}`, { label: 'x' });
    expect([w.status, w.body.code]).toEqual([403, 'forbidden']);
    expect((await m.post('/node', { label: 'x', node_type: 'Concept', space_uid: s })).body.code).toBe('forbidden');
    // write grant: writes inside the Space
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `user:${member.user.user_id}`, access: 'write', classification_ceiling: 'confidential' });
    expect((await m.patch(`/node/${secret}`, { label: 'Merger plan v2' })).status).toBe(200);
    const created = await m.post('/node', { label: 'Member note', node_type: 'Concept', space_uid: s });
    expect(created.status).toBe(201);
    // raising above the ceiling is refused; lowering is for owners and admins
    expect((await m.patch(`/node/${secret}`, { classification: 'restricted' })).body.code).toBe('forbidden');
    expect((await m.patch(`/node/${secret}`, { classification: 'internal' })).body.code).toBe('insufficient_role');
    // a viewer with no grant sees nothing of it
    expect((await viewer.c.get(`/node/${secret}`)).status).toBe(404);
    expect((await o.patch(`/node/${secret}`, { classification: 'internal' })).body.classification).toBe('internal');
    // revoking acts from the next request
    await o.delete(`/v1/spaces/${s}/grants/user:${member.user.user_id}`);
    expect((await m.get(`/node/${secret}`)).status).toBe(404);
  });

  it('an org viewer writes inside a Space it holds a write grant on, and nowhere else', async () => {
    const { o, viewer } = await team(t);
    const s = await space(o, 'Field notes');
    const other = await space(o, 'Elsewhere');
    const v = viewer.c;
    const outside = (await o.post('/node', { label: 'Open note', node_type: 'Concept' })).body.uid;
    const count = async () => (await o.get('/stats')).body.total_nodes + (await o.get('/stats')).body.total_edges;
    // no grant, or a read grant: read-only, as before, and nothing is written
    const before = await count();
    expect([(await v.post('/node', { label: 'x', node_type: 'Concept', space_uid: s })).body.code]).toEqual(['read_only_credential']);
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `user:${viewer.user.user_id}`, access: 'read' });
    expect((await v.post('/node', { label: 'x', node_type: 'Concept', space_uid: s })).body.code).toBe('read_only_credential');
    expect(await count()).toBe(before);
    // a write grant: creates, edits, links and tombstones inside the Space
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `user:${viewer.user.user_id}`, access: 'write' });
    const a = await v.post('/node', { label: 'Sighting', node_type: 'Concept', space_uid: s });
    expect(a.status).toBe(201);
    const b = (await v.post('/batch', { space_uid: s, nodes: [{ label: 'Second sighting', node_type: 'Concept' }] })).body.node_uids[0];
    expect((await o.get(`/edges?from_uid=${b}&edge_type=InSpace`)).body.map((e: any) => e.to_uid)).toEqual([s]);
    expect((await v.patch(`/node/${a.body.uid}`, { label: 'Sighting at dawn' })).body.label).toBe('Sighting at dawn');
    const link = await v.post('/edge', { from_uid: a.body.uid, to_uid: b, edge_type: 'RelatedTo' });
    expect(link.status).toBe(201);
    // an edge with one end inside the Space belongs to it
    expect((await v.post('/edge', { from_uid: a.body.uid, to_uid: outside, edge_type: 'RelatedTo' })).status).toBe(201);
    const claim = await v.post('/epistemic/argument', { claim: { label: 'Birds return early', props: { content: 'Birds return early' } }, space_uid: s });
    expect(claim.status).toBe(201);
    expect((await v.delete(`/node/${b}`)).status).toBe(200);
    // outside every Space it may write: read-only, whatever the route, and nothing is written
    const mark = await count();
    const refused = [
      await v.post('/node', { label: 'loose', node_type: 'Concept' }),
      await v.post('/batch', { nodes: [{ label: 'loose', node_type: 'Concept' }] }),
      await v.patch(`/node/${outside}`, { label: 'renamed' }),
      await v.delete(`/node/${outside}`),
      await v.post('/edge', { from_uid: outside, to_uid: outside, edge_type: 'RelatedTo' }),
      await v.post('/epistemic/argument', { claim: { label: 'Loose claim', props: { content: 'Loose claim' } } }),
      await v.post('/evolve', { action: 'update', uid: outside, label: 'renamed' }),
      await v.post('/batch', { space_uid: s, nodes: [{ label: 'inside', node_type: 'Concept' }, { label: 'outside', node_type: 'Concept', space_uid: other }] }),
      // pulling a node it may not write into its Space is writing outside it
      await v.post('/edge', { from_uid: outside, to_uid: s, edge_type: 'InSpace' }),
    ];
    expect(refused.map((r) => [r.status, r.body.code])).toEqual([
      [403, 'read_only_credential'],
      [403, 'read_only_credential'],
      [403, 'read_only_credential'],
      [403, 'read_only_credential'],
      [403, 'read_only_credential'],
      [403, 'read_only_credential'],
      [403, 'read_only_credential'],
      [403, 'forbidden'],
      [403, 'read_only_credential'],
    ]);
    expect((await o.get(`/edges?from_uid=${outside}&edge_type=InSpace`)).body).toEqual([]);
    // routes whose writes are not graph changes inside a Space stay closed to it
    expect((await v.post('/ingest/chunk', { content: 'Birds return early.', space_uid: s })).body.code).toBe('read_only_credential');
    expect((await v.post('/decay', {})).body.code).toBe('read_only_credential');
    expect(await count()).toBe(mark);
    expect((await o.get(`/node/${outside}`)).body).toMatchObject({ label: 'Open note', tombstone_at: null });
    // revoking acts from the next request
    await o.delete(`/v1/spaces/${s}/grants/user:${viewer.user.user_id}`);
    expect((await v.patch(`/node/${a.body.uid}`, { label: 'again' })).status).toBe(404);
    expect((await v.post('/node', { label: 'x', node_type: 'Concept', space_uid: s })).body.code).toBe('read_only_credential');
  });

  it('keys: a Space-scoped key sees its Spaces only and creates into its single Space; several Spaces need space_uid', async () => {
    const { o, owner } = await team(t);
    const a = await space(o, 'A');
    const b = await space(o, 'B');
    const inA = (await o.post('/node', { label: 'in A', node_type: 'Concept', space_uid: a })).body.uid;
    const inB = (await o.post('/node', { label: 'in B', node_type: 'Concept', space_uid: b })).body.uid;
    const unspaced = (await o.post('/node', { label: 'nowhere', node_type: 'Concept' })).body.uid;
    const one = api(t.url, (await createApiKey(t.url, owner.access_token, { space_uids: [a] })).key);
    expect((await one.get(`/node/${inA}`)).status).toBe(200);
    expect((await one.get(`/node/${inB}`)).status).toBe(404);
    expect((await one.get(`/node/${unspaced}`)).status).toBe(404);
    const made = await one.post('/node', { label: 'by key', node_type: 'Concept' });
    expect(made.status).toBe(201);
    expect((await o.get(`/edges?from_uid=${made.body.uid}&edge_type=InSpace`)).body.map((e: any) => e.to_uid)).toEqual([a]);
    expect((await one.post('/node', { label: 'x', node_type: 'Concept', space_uid: b })).status).toBe(404);
    const two = api(t.url, (await createApiKey(t.url, owner.access_token, { space_uids: [a, b] })).key);
    const need = await two.post('/node', { label: 'x', node_type: 'Concept' });
    expect([need.status, need.body.code, need.body.field]).toEqual([400, 'missing_field', 'space_uid']);
    expect((await two.post('/node', { label: 'x', node_type: 'Concept', space_uid: b })).status).toBe(201);
    // a read-only key listing the Space reads, never writes
    const ro = api(t.url, (await createApiKey(t.url, owner.access_token, { space_uids: [a], scopes: ['read'] })).key);
    expect((await ro.get(`/node/${inA}`)).status).toBe(200);
    expect((await ro.patch(`/node/${inA}`, { label: 'x' })).status).toBe(403);
  });

  it('an agent-bound key reaches spaced nodes through its agent grants only', async () => {
    const { o, owner } = await team(t);
    const s = await space(o, 'Agents');
    const inS = (await o.post('/node', { label: 'agent work', node_type: 'Concept', space_uid: s, classification: 'internal' })).body.uid;
    const unspaced = (await o.post('/node', { label: 'general', node_type: 'Concept' })).body.uid;
    const bound = api(t.url, (await createApiKey(t.url, owner.access_token, { agent_id: 'helper' })).key);
    // no grant: unrestricted for unspaced nodes, blind to spaced ones
    expect((await bound.get(`/node/${unspaced}`)).status).toBe(200);
    expect((await bound.get(`/node/${inS}`)).status).toBe(404);
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: 'agent:helper', access: 'write', classification_ceiling: 'internal' });
    // with a grant the agent's scope is what its grants pass
    expect((await bound.get(`/node/${inS}`)).status).toBe(200);
    expect((await bound.get(`/node/${unspaced}`)).status).toBe(404);
    expect((await bound.patch(`/node/${inS}`, { label: 'agent work 2' })).status).toBe(200);
  });

  it('an agent confined by its grants hears 404 for a Space it holds no grant on, on space_uid as on reads and edges', async () => {
    const { o, owner } = await team(t);
    const granted = await space(o, 'Granted');
    const other = await space(o, 'Other');
    const bound = api(t.url, (await createApiKey(t.url, owner.access_token, { agent_id: 'confined' })).key);
    await o.post(`/v1/spaces/${granted}/grants`, { principal_uid: 'agent:confined', access: 'write' });
    const mine = await bound.post('/node', { label: 'mine', node_type: 'Concept', space_uid: granted });
    expect(mine.status).toBe(201);
    expect((await bound.get(`/node/${other}`)).status).toBe(404);
    const edge = await bound.post('/edge', { from_uid: mine.body.uid, to_uid: other, edge_type: 'InSpace' });
    expect([edge.status, edge.body.code]).toEqual([404, 'not_found']);
    const placed = await bound.post('/node', { label: 'x', node_type: 'Concept', space_uid: other });
    expect([placed.status, placed.body.code, placed.body.field, placed.body.uid]).toEqual([404, 'not_found', 'space_uid', other]);
    const batch = await bound.post('/batch', { nodes: [{ label: 'x', node_type: 'Concept', space_uid: other }] });
    expect([batch.status, batch.body.code]).toEqual([404, 'not_found']);
    // the answer is the one a uid naming nothing gets
    const none = await bound.post('/node', { label: 'x', node_type: 'Concept', space_uid: 'no-such-space' });
    expect([none.status, none.body.code]).toEqual([404, 'not_found']);
    // a read grant makes the Space visible: writing into it is then 403 forbidden
    await o.post(`/v1/spaces/${other}/grants`, { principal_uid: 'agent:confined', access: 'read' });
    expect((await bound.post('/node', { label: 'x', node_type: 'Concept', space_uid: other })).body.code).toBe('forbidden');
  });
});
