import { HttpResponse, api, createApiKey, request, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * `POST /node` runs on the fast lane (its controller declares it; Fastify runs the lane's
 * handler). A client must not be able to tell: every credential and body case answers exactly
 * as `POST /link`, a controller write route of the same tag that reads its body the same way.
 */
describe('POST /node on the fast lane', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ rateLimitPerMinute: 40 });
  });
  afterAll(() => t.close());

  const shape = (r: HttpResponse) => ({ status: r.status, body: r.body, auth: r.headers.get('www-authenticate') });

  it('answers every credential and body case exactly like a guarded controller write route', async () => {
    const owner = await signUp(t.url);
    const rw = await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] });
    const ro = await createApiKey(t.url, owner.access_token, { scopes: ['read'] });
    const stranger = await signUp(t.url);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

    const cases: [string, Record<string, string>, { body?: unknown; raw?: string }, number][] = [
      ['no Authorization header', {}, { body: {} }, 401],
      ['an unknown key', bearer('strata_0000000000000000000000000000000000000000000'), { body: {} }, 401],
      ['a malformed JWT', bearer('eyJhbGciOi.x.y'), { body: {} }, 401],
      ['a user of another organization naming this one', { ...bearer(stranger.access_token), 'x-org-id': owner.org_id }, { body: {} }, 403],
      ['a read-only key', bearer(ro.key), { body: {} }, 403],
      ['a JSON array body', bearer(rw.key), { body: [1, 2] }, 400],
      ['a JSON string body', bearer(rw.key), { body: 'x' }, 400],
      ['a JSON null body', bearer(rw.key), { raw: 'null' }, 400],
      ['malformed JSON', bearer(rw.key), { raw: '{"label":' }, 400],
    ];
    for (const [what, headers, body, status] of cases) {
      const fast = await request(t.url, 'POST', '/node', { headers: { 'content-type': 'application/json', ...headers }, ...body });
      const guarded = await request(t.url, 'POST', '/link', { headers: { 'content-type': 'application/json', ...headers }, ...body });
      expect([what, shape(fast)]).toEqual([what, shape(guarded)]);
      expect([what, fast.status]).toEqual([what, status]);
    }
  });

  it('validates the node as before: a missing label is 400 missing_field, an unknown node type is 422', async () => {
    const owner = await signUp(t.url);
    const c = api(t.url, owner.access_token);
    const missing = await c.post('/node', { node_type: 'Person' });
    expect([missing.status, missing.body.code, missing.body.field]).toEqual([400, 'missing_field', 'label']);
    const created = await c.post('/node', { label: 'Ada', node_type: 'Person' });
    expect(created.status).toBe(201);
  });

  it('answers 201 with the record, the request id and the rate-limit headers', async () => {
    const owner = await signUp(t.url);
    const k = await createApiKey(t.url, owner.access_token);
    const c = api(t.url, k.key);
    const r = await c.post('/node', { label: 'Analytical Engine', node_type: 'Concept' }, { headers: { 'x-request-id': 'req-fast-post-1' } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ label: 'Analytical Engine', node_type: 'Concept', version: 1 });
    expect(r.headers.get('x-request-id')).toBe('req-fast-post-1');
    expect(Number(r.headers.get('x-ratelimit-limit'))).toBe(40);
    expect(Number(r.headers.get('x-ratelimit-remaining'))).toBe(39);
    expect((await c.get(`/node/${r.body.uid}`)).body).toEqual(r.body);
  });

  it('keeps its route-table entry (405 with Allow) and its OpenAPI operation from the controller', async () => {
    const owner = await signUp(t.url);
    const put = await request(t.url, 'PUT', '/node', { token: owner.access_token, body: {} });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('POST');
    const doc = await request(t.url, 'GET', '/openapi.json');
    expect(doc.body.paths['/node'].post).toMatchObject({ summary: 'Create a node with typed props (201 node record)', tags: ['graph: nodes'] });
  });
});
