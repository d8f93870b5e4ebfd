import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, request, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Every route the interface spec tags User JWT, Owner/admin JWT or Owner JWT (that exists today). */
const JWT_ONLY_ROUTES: [string, string, unknown?][] = [
  ['GET', '/v1/account'],
  ['POST', '/v1/orgs', { name: 'x' }],
  ['GET', '/v1/orgs'],
  ['GET', '/v1/orgs/ORG/members'],
  ['POST', '/v1/orgs/ORG/members', { email: 'x@example.com', role: 'member' }],
  ['DELETE', '/v1/orgs/ORG/members/USER'],
  ['POST', '/v1/api-keys', { name: 'x', scopes: ['read'] }],
  ['GET', '/v1/api-keys'],
  ['POST', '/v1/api-keys/KEY/rotate', {}],
  ['GET', '/v1/api-keys/KEY/activity'],
  ['DELETE', '/v1/api-keys/KEY'],
  ['GET', '/v1/billing/subscription'],
  ['POST', '/v1/billing/subscribe', { plan: 'pro' }],
];

describe('API keys', () => {
  let t: TestApp;
  // the service's time: 2030-01-01, moved by the tests that need it to pass
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('creates a key: 201, secret shown once (strata_ + ≥32 random bytes base62), policy echoed', async () => {
    const s = await signUp(t.url);
    const space = (await api(t.url, s.access_token).post('/node', { label: 'Ingest', node_type: 'Space' })).body.uid;
    const res = await api(t.url, s.access_token).post('/v1/api-keys', {
      name: 'ingest bot',
      scopes: ['read', 'write'],
      expires_at: new Date((clock.now() + 86400) * 1000).toISOString(),
      space_uids: [space],
    });
    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^strata_[0-9A-Za-z]{43}$/);
    expect(res.body).toMatchObject({ name: 'ingest bot', scopes: ['read', 'write'], space_uids: [space], project_uids: null, agent_id: null, status: 'active', created_by: s.user_id, last_used_at: null });
    expect(res.body.prefix).toBe(res.body.key.slice(0, 13));
    expect(res.body.expires_at).toMatch(ISO);
    expect(res.body.created_at).toMatch(ISO);
    clock.advance(1);
    const other = await createApiKey(t.url, s.access_token);
    expect(other.key).not.toBe(res.body.key);

    const list = await api(t.url, s.access_token).get('/v1/api-keys');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: false, limit: 100, offset: 0 });
    expect(list.body.items).toHaveLength(2);
    expect(list.text).not.toContain(res.body.key);
    expect(list.text).not.toContain(other.key);
    expect(list.body.items[1]).toMatchObject({ id: res.body.id, name: 'ingest bot', scopes: ['read', 'write'], created_by: s.user_id, status: 'active' });
    expect(list.body.items[1]).not.toHaveProperty('key');
  });

  it('validates key input', async () => {
    const s = await signUp(t.url);
    const k = api(t.url, s.access_token);
    const cases: [unknown, string, string][] = [
      [{ scopes: ['read'] }, 'missing_field', 'name'],
      [{ name: 'x' }, 'missing_field', 'scopes'],
      [{ name: 'x', scopes: [] }, 'invalid_field', 'scopes'],
      [{ name: 'x', scopes: ['admin'] }, 'invalid_field', 'scopes'],
      [{ name: 'x', scopes: ['read'], expires_at: 'tomorrow' }, 'invalid_field', 'expires_at'],
      [{ name: 'x', scopes: ['read'], expires_at: '2001-01-01T00:00:00Z' }, 'invalid_field', 'expires_at'],
      // impossible calendar dates are refused, not rolled over into the next month
      [{ name: 'x', scopes: ['read'], expires_at: '2031-02-31T10:00:00Z' }, 'invalid_field', 'expires_at'],
      [{ name: 'x', scopes: ['read'], expires_at: '2031-02-29' }, 'invalid_field', 'expires_at'],
      [{ name: 'x', scopes: ['read'], expires_at: '2031-04-31T00:00:00Z' }, 'invalid_field', 'expires_at'],
      [{ name: 'x', scopes: ['read'], expires_at: '2031-01-01T25:00:00Z' }, 'invalid_field', 'expires_at'],
      [{ name: 'x', scopes: ['read'], space_uids: ['bad uid'] }, 'invalid_uid', 'space_uids[0]'],
    ];
    for (const [body, code, field] of cases) {
      const r = await k.post('/v1/api-keys', body);
      expect([r.status, r.body.code, r.body.field]).toEqual([400, code, field]);
    }
    expect((await k.get('/v1/api-keys')).body.items).toHaveLength(0);
    // a real date is kept exactly; an offset is converted to UTC
    expect((await k.post('/v1/api-keys', { name: 'leap', scopes: ['read'], expires_at: '2032-02-29T10:00:00+02:00' })).body.expires_at).toBe('2032-02-29T08:00:00.000Z');
    // write implies read
    expect((await k.post('/v1/api-keys', { name: 'w', scopes: ['write'] })).body.scopes).toEqual(['read', 'write']);
  });

  it('space_uids names live Spaces of the organization: unknown, tombstoned or foreign 404, another type 400; no key is created', async () => {
    const s = await signUp(t.url);
    const k = api(t.url, s.access_token);
    const space = (await k.post('/node', { label: 'Legal', node_type: 'Space' })).body.uid;
    const gone = (await k.post('/node', { label: 'Old', node_type: 'Space' })).body.uid;
    expect((await k.delete(`/node/${gone}`)).status).toBe(200);
    const concept = (await k.post('/node', { label: 'Not a Space', node_type: 'Concept' })).body.uid;
    const theirs = await signUp(t.url);
    const foreign = (await api(t.url, theirs.access_token).post('/node', { label: 'Theirs', node_type: 'Space' })).body.uid;
    const cases: [string[], number, string, string][] = [
      [['no-such-space'], 404, 'not_found', 'space_uids[0]'],
      [[space, gone], 404, 'not_found', 'space_uids[1]'],
      [[foreign], 404, 'not_found', 'space_uids[0]'],
      [[concept], 400, 'wrong_node_type', 'space_uids[0]'],
    ];
    for (const [space_uids, status, code, field] of cases) {
      const r = await k.post('/v1/api-keys', { name: 'x', scopes: ['read'], space_uids });
      expect([space_uids, r.status, r.body.code, r.body.field]).toEqual([space_uids, status, code, field]);
    }
    expect((await k.get('/v1/api-keys')).body.items).toHaveLength(0);
    const ok = await k.post('/v1/api-keys', { name: 'legal', scopes: ['read'], space_uids: [space] });
    expect([ok.status, ok.body.space_uids]).toEqual([201, [space]]);
  });

  it('an API key is refused on every JWT-only route (403 api_key_not_allowed)', async () => {
    const s = await signUp(t.url);
    const key = await createApiKey(t.url, s.access_token);
    for (const [method, raw, body] of JWT_ONLY_ROUTES) {
      const p = raw.replace('ORG', s.org_id).replace('USER', s.user_id).replace('KEY', key.id);
      const r = await request(t.url, method, p, { token: key.key, body });
      expect([method, p, r.status, r.body]).toEqual([method, p, 403, { error: 'this route requires a signed-in user', code: 'api_key_not_allowed' }]);
    }
    // nothing changed: still one key, the org still has one member
    expect((await api(t.url, s.access_token).get('/v1/api-keys')).body.items).toHaveLength(1);
    expect((await api(t.url, s.access_token).get(`/v1/orgs/${s.org_id}/members`)).body.items).toHaveLength(1);
  });

  it('members (not owner/admin) cannot manage keys', async () => {
    const owner = await signUp(t.url);
    const m = await signUp(t.url);
    await api(t.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' });
    const r = await api(t.url, m.access_token, { org: owner.org_id }).get('/v1/api-keys');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'admin role required', code: 'insufficient_role', required_role: 'admin' });
    // an admin can
    await api(t.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'admin' });
    expect((await api(t.url, m.access_token, { org: owner.org_id }).get('/v1/api-keys')).status).toBe(200);
  });

  it('a read-only key reads but every write answers 403 read_only_credential', async () => {
    const s = await signUp(t.url);
    const rw = await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] });
    const ro = await createApiKey(t.url, s.access_token, { scopes: ['read'] });
    const node = await api(t.url, rw.key).post('/node', { label: 'n', node_type: 'Concept' });
    expect(node.status).toBe(201);
    const reader = api(t.url, ro.key);
    expect((await reader.get(`/node/${node.body.uid}`)).status).toBe(200);
    expect((await reader.get('/nodes')).status).toBe(200);
    expect((await reader.get(`/node/${node.body.uid}/history`)).status).toBe(200);
    expect((await reader.post('/nodes/batch', { uids: [node.body.uid] })).status).toBe(200); // @ReadsOnly POST
    for (const [method, p, body] of [
      ['POST', '/node', { label: 'x', node_type: 'Concept' }],
      ['PATCH', `/node/${node.body.uid}`, { label: 'x' }],
      ['DELETE', `/node/${node.body.uid}`, undefined],
      ['POST', '/nodes/delete', { uids: [node.body.uid] }],
    ] as const) {
      const r = await request(t.url, method, p, { token: ro.key, body });
      expect([method, p, r.status, r.body]).toEqual([method, p, 403, { error: 'this credential is read-only; writes are not allowed', code: 'read_only_credential' }]);
    }
    const still = await api(t.url, rw.key).get(`/node/${node.body.uid}`);
    expect([still.body.label, still.body.tombstone_at]).toEqual(['n', null]);
    // usage is readable with any key
    expect((await reader.get('/v1/usage')).status).toBe(200);
  });

  it('revocation takes effect at once, even for a key whose check is cached', async () => {
    const s = await signUp(t.url);
    const k = await createApiKey(t.url, s.access_token);
    const c = api(t.url, k.key);
    for (let i = 0; i < 3; i++) expect((await c.get('/nodes')).status).toBe(200);
    const del = await api(t.url, s.access_token).delete(`/v1/api-keys/${k.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ id: k.id, revoked: true, revoked_at: expect.stringMatching(ISO) });
    const after = await c.get('/nodes');
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ error: 'invalid token', code: 'invalid_token' });
    expect(after.headers.get('www-authenticate')).toBe('Bearer realm="strata", error="invalid_token"');
    expect((await c.post('/node', { label: 'x', node_type: 'Concept' })).status).toBe(401);
    // idempotent; listed as revoked; cannot be rotated
    expect((await api(t.url, s.access_token).delete(`/v1/api-keys/${k.id}`)).status).toBe(200);
    const listed = (await api(t.url, s.access_token).get('/v1/api-keys')).body.items.find((x: { id: string }) => x.id === k.id);
    expect(listed.status).toBe('revoked');
    const rot = await api(t.url, s.access_token).post(`/v1/api-keys/${k.id}/rotate`, {});
    expect([rot.status, rot.body.code, rot.body.from_status]).toEqual([409, 'invalid_transition', 'revoked']);
  });

  it('an expired key answers 403 api_key_expired', async () => {
    const s = await signUp(t.url);
    const k = await createApiKey(t.url, s.access_token, { expires_at: new Date((clock.now() + 1.5) * 1000).toISOString() });
    expect((await api(t.url, k.key).get('/nodes')).status).toBe(200);
    clock.advance(1.7);
    const r = await api(t.url, k.key).get('/nodes');
    expect(r.status).toBe(403);
    expect(r.body).toEqual({ error: 'API key expired', code: 'api_key_expired' });
    const listed = (await api(t.url, s.access_token).get('/v1/api-keys')).body.items[0];
    expect(listed.status).toBe('expired');
  });

  it('rotation: the replacement has the same policy; the old key works during the overlap, then stops', async () => {
    const s = await signUp(t.url);
    const old = await createApiKey(t.url, s.access_token, { name: 'rotating', scopes: ['read'], project_uids: ['p1'] });
    expect((await api(t.url, old.key).get('/nodes')).status).toBe(200);
    const tooLong = await api(t.url, s.access_token).post(`/v1/api-keys/${old.id}/rotate`, { overlap_seconds: 7 * 86400 + 1 });
    expect([tooLong.status, tooLong.body.code, tooLong.body.field]).toEqual([400, 'invalid_field', 'overlap_seconds']);

    const rot = await api(t.url, s.access_token).post(`/v1/api-keys/${old.id}/rotate`, { overlap_seconds: 2 });
    expect(rot.status).toBe(201);
    expect(rot.body.key).toMatch(/^strata_/);
    expect(rot.body.id).not.toBe(old.id);
    expect(rot.body).toMatchObject({ name: 'rotating', scopes: ['read'], project_uids: ['p1'], rotated_from: old.id, previous_key: { id: old.id } });
    expect(rot.body.previous_key.overlap_until).toMatch(ISO);

    expect((await api(t.url, old.key).get('/nodes')).status).toBe(200);
    expect((await api(t.url, rot.body.key).get('/nodes')).status).toBe(200);
    const list = (await api(t.url, s.access_token).get('/v1/api-keys')).body.items;
    expect(list.find((x: { id: string }) => x.id === old.id)).toMatchObject({ status: 'rotating', replaced_by: rot.body.id });
    // a rotated key cannot be rotated again
    expect((await api(t.url, s.access_token).post(`/v1/api-keys/${old.id}/rotate`, {})).status).toBe(409);

    clock.advance(2.3);
    const gone = await api(t.url, old.key).get('/nodes');
    expect([gone.status, gone.body.code]).toEqual([401, 'invalid_token']);
    expect((await api(t.url, rot.body.key).get('/nodes')).status).toBe(200);
  });

  it('rotation keeps the absolute expiry: the replacement expires when the old key would have', async () => {
    const s = await signUp(t.url);
    const old = await createApiKey(t.url, s.access_token, { expires_at: '2099-06-01T00:00:00Z' });
    expect(old.expires_at).toBe('2099-06-01T00:00:00.000Z');
    clock.advance(1.1);
    const rot = await api(t.url, s.access_token).post(`/v1/api-keys/${old.id}/rotate`, {});
    expect(rot.status).toBe(201);
    expect(rot.body.expires_at).toBe('2099-06-01T00:00:00.000Z');
    const listed = (await api(t.url, s.access_token).get('/v1/api-keys')).body.items.find((x: { id: string }) => x.id === rot.body.id);
    expect(listed.expires_at).toBe('2099-06-01T00:00:00.000Z');
  });

  it('rotation with no overlap stops the old key at once', async () => {
    const s = await signUp(t.url);
    const old = await createApiKey(t.url, s.access_token);
    expect((await api(t.url, old.key).get('/nodes')).status).toBe(200);
    const rot = await api(t.url, s.access_token).post(`/v1/api-keys/${old.id}/rotate`, { overlap_seconds: 0 });
    expect(rot.status).toBe(201);
    expect((await api(t.url, old.key).get('/nodes')).status).toBe(401);
    expect((await api(t.url, rot.body.key).get('/nodes')).status).toBe(200);
  });

  it('activity: lifecycle and request events, newest first, at most 50', async () => {
    const s = await signUp(t.url);
    const k = await createApiKey(t.url, s.access_token, { scopes: ['read'] });
    const c = api(t.url, k.key);
    clock.advance(1);
    expect((await c.get('/nodes')).status).toBe(200);
    clock.advance(1);
    expect((await c.post('/node', { label: 'x', node_type: 'Concept' })).status).toBe(403);
    clock.advance(1);
    expect((await c.get('/node/no-such-node')).status).toBe(404);
    const act = await api(t.url, s.access_token).get(`/v1/api-keys/${k.id}/activity`);
    expect(act.status).toBe(200);
    expect(act.body.key_id).toBe(k.id);
    const items = act.body.items;
    expect(items.slice(0, 3).map((i: { type: string; method: string; route: string; status: number }) => [i.type, i.method, i.route, i.status])).toEqual([
      ['request', 'GET', '/node/:uid', 404],
      ['request', 'POST', '/node', 403],
      ['request', 'GET', '/nodes', 200],
    ]);
    expect(items[3]).toMatchObject({ type: 'created', actor: { kind: 'user', id: s.user_id } });
    for (const i of items) expect(i.at).toMatch(ISO);
    // last_used_at shows up in the list
    expect((await api(t.url, s.access_token).get('/v1/api-keys')).body.items[0].last_used_at).toMatch(ISO);

    // each request at its own millisecond, as on a real clock: requests identical in time, route
    // and status read as one when the flush timer happens to store some of them in between
    for (let i = 0; i < 60; i++) {
      clock.advance(0.001);
      await c.get('/nodes');
    }
    clock.advance(1);
    await api(t.url, s.access_token).delete(`/v1/api-keys/${k.id}`);
    const full = await api(t.url, s.access_token).get(`/v1/api-keys/${k.id}/activity`);
    expect(full.body.items).toHaveLength(50);
    expect(full.body.items[0].type).toBe('revoked');
  });

  it("keys of another organization: 404 on rotate, activity and revoke", async () => {
    const a = await signUp(t.url);
    const b = await signUp(t.url);
    const kb = await createApiKey(t.url, b.access_token);
    for (const [method, p] of [
      ['POST', `/v1/api-keys/${kb.id}/rotate`],
      ['GET', `/v1/api-keys/${kb.id}/activity`],
      ['DELETE', `/v1/api-keys/${kb.id}`],
    ] as const) {
      const r = await request(t.url, method, p, { token: a.access_token, body: method === 'POST' ? {} : undefined });
      expect([p, r.status, r.body.code]).toEqual([p, 404, 'not_found']);
    }
    expect((await api(t.url, kb.key).get('/nodes')).status).toBe(200);
  });

  it('an agent-bound key acts as its agent: writes are attributed to it whatever the body says', async () => {
    const s = await signUp(t.url);
    const k = await createApiKey(t.url, s.access_token, { agent_id: 'agent-7' });
    expect(k.body.agent_id).toBe('agent-7');
    const n = await api(t.url, k.key).post('/node', { label: 'by agent', node_type: 'Concept', agent_id: 'someone-else' });
    expect(n.status).toBe(201);
    expect(n.body.agent_id).toBe('agent-7');
    const byAgent = await api(t.url, s.access_token).get('/agent/agent-7/nodes');
    expect(byAgent.body.items.map((x: { uid: string }) => x.uid)).toEqual([n.body.uid]);
    // a plain key keeps the body's attribution
    const plain = await createApiKey(t.url, s.access_token);
    const m = await api(t.url, plain.key).post('/node', { label: 'attributed', node_type: 'Concept', agent_id: 'helper' });
    expect(m.body.agent_id).toBe('helper');
  });

  it('an agent-bound key is its own principal: history shows the key as changed_by / tombstone_by and the agent as agent_id', async () => {
    const s = await signUp(t.url);
    const k = await createApiKey(t.url, s.access_token, { agent_id: 'agent-9' });
    const c = api(t.url, k.key);
    const n = await c.post('/node', { label: 'bound', node_type: 'Concept' });
    expect(n.status).toBe(201);
    expect((await c.delete(`/node/${n.body.uid}`)).status).toBe(200);
    const h = await c.get(`/node/${n.body.uid}/history`);
    expect(h.body.map((v: any) => [v.change_type, v.changed_by, v.agent_id])).toEqual([
      ['create', k.id, 'agent-9'],
      ['tombstone', k.id, 'agent-9'],
    ]);
    expect((await c.get(`/node/${n.body.uid}`)).body).toMatchObject({ agent_id: 'agent-9', tombstone_by: k.id });
  });

  it('a key cannot be bound to "system", a principal form or a user or key id (400 invalid_field); nothing is created', async () => {
    const owner = await signUp(t.url);
    const admin = await signUp(t.url);
    await api(t.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: admin.email, role: 'admin' });
    const existing = await createApiKey(t.url, owner.access_token);
    const asAdmin = api(t.url, admin.access_token, { org: owner.org_id });
    for (const agent of ['system', 'SYSTEM', ' system ', 'system:decay', 'user:' + owner.user_id, 'api_key:' + existing.id, 'agent:x', owner.user_id, admin.user_id, existing.id]) {
      const r = await asAdmin.post('/v1/api-keys', { name: 'imp', scopes: ['read', 'write'], agent_id: agent });
      expect([agent, r.status, r.body.code, r.body.field]).toEqual([agent, 400, 'invalid_field', 'agent_id']);
    }
    const bad = await asAdmin.post('/v1/api-keys', { name: 'imp', scopes: ['read'], agent_id: 'has space' });
    expect([bad.status, bad.body.code, bad.body.field]).toEqual([400, 'invalid_field', 'agent_id']);
    expect((await asAdmin.get('/v1/api-keys')).body.items).toHaveLength(1);
    // an agent id that only looks like something else is fine, and still no impersonation
    const ok = await asAdmin.post('/v1/api-keys', { name: 'bot', scopes: ['read', 'write'], agent_id: 'systems-bot' });
    expect(ok.status).toBe(201);
    const n = await api(t.url, ok.body.key).post('/node', { label: 'x', node_type: 'Concept' });
    const h = await api(t.url, ok.body.key).get(`/node/${n.body.uid}/history`);
    expect(h.body[0]).toMatchObject({ changed_by: ok.body.id, agent_id: 'systems-bot' });
    expect(h.body[0].changed_by).not.toBe(owner.user_id);
  });

  it("another organization's user and key ids are answered like any agent id, so they are not confirmed to exist", async () => {
    const mine = await signUp(t.url);
    const theirs = await signUp(t.url);
    const theirKey = await createApiKey(t.url, theirs.access_token);
    const me = api(t.url, mine.access_token);
    for (const agent of [theirs.user_id, theirKey.id, '00000000-0000-4000-8000-00000000abcd']) {
      const r = await me.post('/v1/api-keys', { name: 'bot', scopes: ['read'], agent_id: agent });
      expect([agent, r.status, r.body.agent_id]).toEqual([agent, 201, agent]);
    }
  });
});
