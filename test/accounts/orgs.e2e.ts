import { TestApp, startTestApp } from '../support/test-app';
import { SignedUp, api, createApiKey, request, signUp, uniqueEmail } from '../support/http';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('account, organizations and members', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function addMember(owner: SignedUp, orgId: string, who: SignedUp, role: string) {
    const r = await api(t.url, owner.access_token).post(`/v1/orgs/${orgId}/members`, { email: who.email, role });
    expect([201, 200]).toContain(r.status);
    return r;
  }

  it('GET /v1/account: the user and memberships with roles', async () => {
    const s = await signUp(t.url, { name: 'Ada', org: 'Engines' });
    const r = await api(t.url, s.access_token).get('/v1/account');
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ id: s.user_id, email: s.email, name: 'Ada' });
    expect(r.body.user.created_at).toMatch(ISO);
    expect(r.body.memberships).toEqual([{ org_id: s.org_id, org_name: 'Engines', role: 'owner', plan: 'free', joined_at: expect.stringMatching(ISO) }]);
    expect(r.body.current_org_id).toBe(s.org_id);
    expect(r.text).not.toContain(s.password);
    expect(r.text).not.toMatch(/password/);
  });

  it('creates and lists organizations, earliest membership first, paginated', async () => {
    const s = await signUp(t.url, { org: 'First' });
    const c = await api(t.url, s.access_token).post('/v1/orgs', { name: 'Second' });
    expect(c.status).toBe(201);
    expect(c.body).toMatchObject({ name: 'Second', role: 'owner', plan: 'free' });
    expect(c.body.created_at).toMatch(ISO);
    const list = await api(t.url, s.access_token).get('/v1/orgs');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: false, limit: 100, offset: 0 });
    expect(list.body.items.map((o: { name: string }) => o.name)).toEqual(['First', 'Second']);
    const page = await api(t.url, s.access_token).get('/v1/orgs?limit=1');
    expect(page.body).toMatchObject({ has_more: true, limit: 1, offset: 0 });
    expect((await api(t.url, s.access_token).post('/v1/orgs', {})).body).toMatchObject({ code: 'missing_field', field: 'name' });
  });

  it('X-Org-Id picks the organization of a user JWT; default is the earliest; foreign → 403 forbidden', async () => {
    const s = await signUp(t.url, { org: 'Home' });
    const second = (await api(t.url, s.access_token).post('/v1/orgs', { name: 'Away' })).body.id;
    const user = api(t.url, s.access_token);
    const home = await user.post('/node', { label: 'home node', node_type: 'Concept' });
    const away = await user.post('/node', { label: 'away node', node_type: 'Concept' }, { org: second });
    expect(home.status).toBe(201);
    expect(away.status).toBe(201);
    expect((await user.get(`/node/${home.body.uid}`)).status).toBe(200);
    expect((await user.get(`/node/${away.body.uid}`)).status).toBe(404);
    expect((await user.get(`/node/${away.body.uid}`, { org: second })).status).toBe(200);
    expect((await user.get('/v1/account', { org: second })).body.current_org_id).toBe(second);

    const stranger = await signUp(t.url);
    const foreign = await user.get('/nodes', { org: stranger.org_id });
    expect(foreign.status).toBe(403);
    expect(foreign.body.code).toBe('forbidden');

    // API keys are bound to one organization and ignore the header
    const key = await createApiKey(t.url, s.access_token, { scopes: ['read'] });
    expect((await api(t.url, key.key).get(`/node/${home.body.uid}`, { org: second })).status).toBe(200);
    expect((await api(t.url, key.key).get(`/node/${away.body.uid}`, { org: second })).status).toBe(404);
  });

  it('owners add members by e-mail; a new role for an existing member is a change; unknown e-mails 404', async () => {
    const owner = await signUp(t.url);
    const bob = await signUp(t.url, { name: 'Bob' });
    const add = await addMember(owner, owner.org_id, bob, 'member');
    expect(add.status).toBe(201);
    expect(add.body).toMatchObject({ org_id: owner.org_id, user_id: bob.user_id, email: bob.email, name: 'Bob', role: 'member' });
    const again = await addMember(owner, owner.org_id, bob, 'admin');
    expect(again.status).toBe(200);
    expect(again.body.role).toBe('admin');

    const members = await api(t.url, owner.access_token).get(`/v1/orgs/${owner.org_id}/members`);
    expect(members.status).toBe(200);
    expect(members.body.items.map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([
      [owner.user_id, 'owner'],
      [bob.user_id, 'admin'],
    ]);
    // bob now sees both organizations
    const bobsOrgs = await api(t.url, bob.access_token).get('/v1/orgs');
    expect(bobsOrgs.body.items.map((o: { id: string; role: string }) => [o.id, o.role])).toEqual([
      [bob.org_id, 'owner'],
      [owner.org_id, 'admin'],
    ]);

    const unknown = await api(t.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: uniqueEmail('ghost'), role: 'member' });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'not_found']);
    const badRole = await api(t.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: bob.email, role: 'emperor' });
    expect([badRole.status, badRole.body.code, badRole.body.field]).toEqual([400, 'invalid_field', 'role']);
  });

  it('role rules: only owners make owners; admins cannot remove owners; members cannot manage; last owner stays', async () => {
    const owner = await signUp(t.url);
    const admin = await signUp(t.url);
    const member = await signUp(t.url);
    const other = await signUp(t.url);
    await addMember(owner, owner.org_id, admin, 'admin');
    await addMember(owner, owner.org_id, member, 'member');
    const org = owner.org_id;

    const adminMakesOwner = await api(t.url, admin.access_token).post(`/v1/orgs/${org}/members`, { email: other.email, role: 'owner' });
    expect(adminMakesOwner.status).toBe(403);
    expect(adminMakesOwner.body).toEqual({ error: 'owner role required', code: 'insufficient_role', required_role: 'owner' });
    expect((await api(t.url, admin.access_token).post(`/v1/orgs/${org}/members`, { email: other.email, role: 'viewer' })).status).toBe(201);

    const memberAdds = await api(t.url, member.access_token).post(`/v1/orgs/${org}/members`, { email: uniqueEmail(), role: 'viewer' });
    expect([memberAdds.status, memberAdds.body.code, memberAdds.body.required_role]).toEqual([403, 'insufficient_role', 'admin']);
    const memberRemoves = await api(t.url, member.access_token).delete(`/v1/orgs/${org}/members/${other.user_id}`);
    expect([memberRemoves.status, memberRemoves.body.code]).toEqual([403, 'insufficient_role']);

    const adminRemovesOwner = await api(t.url, admin.access_token).delete(`/v1/orgs/${org}/members/${owner.user_id}`);
    expect([adminRemovesOwner.status, adminRemovesOwner.body.code, adminRemovesOwner.body.required_role]).toEqual([403, 'insufficient_role', 'owner']);

    const lastOwner = await api(t.url, owner.access_token).delete(`/v1/orgs/${org}/members/${owner.user_id}`);
    expect([lastOwner.status, lastOwner.body.code]).toEqual([403, 'forbidden']);
    const demoteLast = await api(t.url, owner.access_token).post(`/v1/orgs/${org}/members`, { email: owner.email, role: 'admin' });
    expect([demoteLast.status, demoteLast.body.code]).toEqual([403, 'forbidden']);

    // an owner makes a second owner; then the first may leave
    expect((await api(t.url, owner.access_token).post(`/v1/orgs/${org}/members`, { email: admin.email, role: 'owner' })).status).toBe(200);
    const leave = await api(t.url, owner.access_token).delete(`/v1/orgs/${org}/members/${owner.user_id}`);
    expect(leave.status).toBe(200);
    expect(leave.body).toEqual({ org_id: org, user_id: owner.user_id, removed: true });

    // admins remove members; removing a non-member is 404
    expect((await api(t.url, admin.access_token).delete(`/v1/orgs/${org}/members/${member.user_id}`)).status).toBe(200);
    expect((await api(t.url, admin.access_token).delete(`/v1/orgs/${org}/members/${member.user_id}`)).status).toBe(404);
    // anyone may leave
    expect((await api(t.url, other.access_token).delete(`/v1/orgs/${org}/members/${other.user_id}`)).status).toBe(200);
  });

  it('a removed member loses access at once', async () => {
    const owner = await signUp(t.url);
    const bob = await signUp(t.url);
    await addMember(owner, owner.org_id, bob, 'member');
    const asBob = api(t.url, bob.access_token, { org: owner.org_id });
    expect((await asBob.get('/nodes')).status).toBe(200); // cached now
    expect((await api(t.url, owner.access_token).delete(`/v1/orgs/${owner.org_id}/members/${bob.user_id}`)).status).toBe(200);
    const after = await asBob.get('/nodes');
    expect([after.status, after.body.code]).toEqual([403, 'forbidden']);
    expect((await asBob.get(`/v1/orgs/${owner.org_id}/members`)).status).toBe(403);
  });

  it('members of an organization you are not in: 404 (existence does not leak)', async () => {
    const a = await signUp(t.url);
    const b = await signUp(t.url);
    const r = await api(t.url, a.access_token).get(`/v1/orgs/${b.org_id}/members`);
    expect([r.status, r.body.code]).toEqual([404, 'not_found']);
    const add = await api(t.url, a.access_token).post(`/v1/orgs/${b.org_id}/members`, { email: a.email, role: 'owner' });
    expect(add.status).toBe(404);
    const del = await api(t.url, a.access_token).delete(`/v1/orgs/${b.org_id}/members/${b.user_id}`);
    expect(del.status).toBe(404);
    const nobody = await api(t.url, a.access_token).get('/v1/orgs/00000000-0000-4000-8000-000000000000/members');
    expect(nobody.status).toBe(404);
    const bad = await api(t.url, a.access_token).get('/v1/orgs/bad%20id/members');
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_uid']);
  });

  it('viewers read but cannot write; they cannot manage keys', async () => {
    const owner = await signUp(t.url);
    const viewer = await signUp(t.url);
    await addMember(owner, owner.org_id, viewer, 'viewer');
    const node = await api(t.url, owner.access_token).post('/node', { label: 'shared', node_type: 'Concept' });
    const asViewer = api(t.url, viewer.access_token, { org: owner.org_id });
    expect((await asViewer.get(`/node/${node.body.uid}`)).status).toBe(200);
    expect((await asViewer.get('/nodes')).body.items.length).toBe(1);
    for (const [method, p, body] of [
      ['POST', '/node', { label: 'nope', node_type: 'Concept' }],
      ['PATCH', `/node/${node.body.uid}`, { label: 'changed' }],
      ['DELETE', `/node/${node.body.uid}`, undefined],
    ] as const) {
      const r = await request(t.url, method, p, { token: viewer.access_token, org: owner.org_id, body });
      expect([method, r.status, r.body.code]).toEqual([method, 403, 'read_only_credential']);
    }
    const keys = await asViewer.post('/v1/api-keys', { name: 'x', scopes: ['read'] });
    expect([keys.status, keys.body.code, keys.body.required_role]).toEqual([403, 'insufficient_role', 'admin']);
    expect((await api(t.url, owner.access_token).get(`/node/${node.body.uid}`)).body.label).toBe('shared');
  });
});
