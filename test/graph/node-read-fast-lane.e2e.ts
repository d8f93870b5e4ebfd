import { HttpResponse, api, createApiKey, request, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * `GET /node/{uid}` is served on the fast lane (registered on Fastify, not through the Nest
 * router). A client must not be able to tell: every authentication and error case
 * answers exactly as on a controller route of the same tag — `GET /node/{uid}/history` here.
 */
describe('GET /node/{uid} on the fast lane', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimitPerMinute: 40 });
  });
  afterAll(() => t.close());

  const shape = (r: HttpResponse) => ({ status: r.status, body: r.status === 200 ? 'ok' : r.body, auth: r.headers.get('www-authenticate') });

  async function both(uid: string, headers: Record<string, string>) {
    const fast = await request(t.url, 'GET', `/node/${uid}`, { headers });
    const guarded = await request(t.url, 'GET', `/node/${uid}/history`, { headers });
    return { fast, guarded };
  }

  it('answers every credential case exactly like a guarded controller route', async () => {
    const owner = await signUp(t.url);
    const rw = await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] });
    const ro = await createApiKey(t.url, owner.access_token, { scopes: ['read'] });
    const revoked = await createApiKey(t.url, owner.access_token);
    const node = await api(t.url, rw.key).post('/node', { label: 'Ada Lovelace', node_type: 'Person' });
    expect(node.status).toBe(201);
    await api(t.url, revoked.key).get(`/node/${node.body.uid}`); // cached before it is revoked
    expect((await api(t.url, owner.access_token).delete(`/v1/api-keys/${revoked.id}`)).status).toBe(200);
    const stranger = await signUp(t.url);

    const cases: [string, string, Record<string, string>, number][] = [
      ['no Authorization header', node.body.uid, {}, 401],
      ['another scheme', node.body.uid, { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, 401],
      ['an unknown key', node.body.uid, { authorization: 'Bearer strata_0000000000000000000000000000000000000000000' }, 401],
      ['a malformed JWT', node.body.uid, { authorization: 'Bearer eyJhbGciOi.x.y' }, 401],
      ['a revoked key', node.body.uid, { authorization: `Bearer ${revoked.key}` }, 401],
      ['a user of another organization naming this one', node.body.uid, { authorization: `Bearer ${stranger.access_token}`, 'x-org-id': owner.org_id }, 403],
      ['a read-only key', node.body.uid, { authorization: `Bearer ${ro.key}` }, 200],
      ['the owner JWT', node.body.uid, { authorization: `Bearer ${owner.access_token}` }, 200],
      ['a malformed uid', 'not-a-uid!', { authorization: `Bearer ${rw.key}` }, 400],
      ['an unknown uid', '00000000-0000-4000-8000-000000000000', { authorization: `Bearer ${rw.key}` }, 404],
    ];
    for (const [what, uid, headers, status] of cases) {
      const { fast, guarded } = await both(uid, headers);
      expect([what, shape(fast)]).toEqual([what, shape(guarded)]);
      expect([what, fast.status]).toEqual([what, status]);
    }
  });

  it('returns the stored record with the request id and the rate-limit headers', async () => {
    const owner = await signUp(t.url);
    const k = await createApiKey(t.url, owner.access_token);
    const c = api(t.url, k.key);
    const created = await c.post('/node', { label: 'Analytical Engine', node_type: 'Concept' });
    const r = await c.get(`/node/${created.body.uid}`, { headers: { 'x-request-id': 'req-fast-1' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual(created.body);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('x-request-id')).toBe('req-fast-1');
    expect(Number(r.headers.get('x-ratelimit-limit'))).toBe(40);
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(40 - 2); // the key's second request (POST /node, then this)
  });

  it('counts against the same per-credential limit as every other route (429 with Retry-After)', async () => {
    const owner = await signUp(t.url);
    const k = await createApiKey(t.url, owner.access_token);
    const c = api(t.url, k.key);
    const created = await c.post('/node', { label: 'Difference Engine', node_type: 'Concept' });
    let last: HttpResponse | undefined;
    for (let i = 0; i < 40; i++) last = await c.get(i % 2 ? `/node/${created.body.uid}` : `/node/${created.body.uid}/history`);
    expect(last!.status).toBe(429);
    expect(last!.body.code).toBe('rate_limited');
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    const fast = await c.get(`/node/${created.body.uid}`);
    expect([fast.status, fast.body.code]).toEqual([429, 'rate_limited']);
  });

  it('is in the route table (405 with Allow) and in OpenAPI', async () => {
    const owner = await signUp(t.url);
    const put = await request(t.url, 'PUT', '/node/00000000-0000-4000-8000-000000000000', { token: owner.access_token, body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('DELETE, GET, PATCH');
    const doc = await request(t.url, 'GET', '/openapi.json');
    expect(doc.body.paths['/node/{uid}'].get).toMatchObject({ summary: 'Get a node (tombstoned nodes too)', tags: ['graph: nodes'] });
    expect(Object.keys(doc.body.paths['/node/{uid}']).sort()).toEqual(['delete', 'get', 'patch']);
  });
});
