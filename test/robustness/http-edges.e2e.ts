import { Api, api, createApiKey, request, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * Failures raised at the HTTP layer, before a handler runs (router, body parser, early
 * authentication), still answer in the Strata shape `{error, code}` (REFERENCE §1.10) with
 * X-Request-Id (§1.1).
 */
describe('HTTP edges', () => {
  let t: TestApp;
  let c: Api;
  let key: string;
  let jwt: string;

  beforeAll(async () => {
    t = await startTestApp();
    const owner = await signUp(t.url);
    jwt = owner.access_token;
    key = (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key;
    c = api(t.url, key);
  });
  afterAll(() => t.close());

  describe('long and malformed path ids (REFERENCE §1.4)', () => {
    it('a node imported with a 128-character uid can be read back by path', async () => {
      const made = await c.post('/node', { label: 'long uid', node_type: 'Concept' });
      const snap = (await c.get('/export')).body;
      const node = snap.nodes.find((n: { uid: string }) => n.uid === made.body.uid);
      const other = await signUp(t.url);
      const c2 = api(t.url, (await createApiKey(t.url, other.access_token)).key);
      for (const len of [101, 120, 128]) {
        const uid = 'u'.repeat(len - 4) + '.:-_'.slice(0, 4);
        const imp = await c2.post('/import', { format: 'strata.graph', format_version: 1, nodes: [{ ...node, uid }] });
        expect([len, imp.status, imp.body.nodes_imported]).toEqual([len, 200, 1]);
        const got = await c2.get(`/node/${uid}`);
        expect([len, got.status, got.body.uid]).toEqual([len, 200, uid]);
        expect((await c2.get(`/node/${uid}/history`)).status).toBe(200);
        expect((await c2.patch(`/node/${uid}`, { label: 'renamed' })).status).toBe(200);
      }
    });

    it('a uid over 128 characters is 400 invalid_uid, however long, with X-Request-Id', async () => {
      for (const len of [129, 1024, 1025, 5000]) {
        for (const [method, path] of [
          ['GET', `/node/${'a'.repeat(len)}`],
          ['GET', `/node/${'a'.repeat(len)}/history`],
          ['PATCH', `/node/${'a'.repeat(len)}`],
          ['GET', `/v1/api-keys/${'a'.repeat(len)}/activity`],
        ]) {
          const token = path.startsWith('/v1/') ? jwt : key;
          const r = await request(t.url, method, path, { token, body: method === 'PATCH' ? { label: 'x' } : undefined, headers: { 'x-request-id': `long-${len}` } });
          expect([len, method, r.status, r.body?.code]).toEqual([len, method, 400, 'invalid_uid']);
          expect(typeof r.body.error).toBe('string');
          expect(r.headers.get('x-request-id')).toBe(`long-${len}`);
        }
      }
    });

    it('bad percent-encoding in a path id is 400 invalid_uid with X-Request-Id, never a Fastify body', async () => {
      for (const path of ['/node/%E0%A4%A', '/node/%zz/history']) {
        const r = await request(t.url, 'GET', path, { token: key });
        expect([path, r.status, r.body?.code]).toEqual([path, 400, 'invalid_uid']);
        expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(r.text).not.toContain('FST_ERR');
      }
    });
  });

  describe('prototype-pollution keys (REFERENCE §1.1, §1.10)', () => {
    it('a body with a __proto__ key is 400 invalid_json naming it, and nothing is written', async () => {
      const o = await signUp(t.url);
      const k = api(t.url, (await createApiKey(t.url, o.access_token)).key);
      for (const [path, raw] of [
        ['/reality/capture', '{"action":"source","label":"p","props":{"__proto__":{"polluted":1}}}'],
        ['/reality/capture', '{"action":"source","label":"p","__proto__":{"polluted":1}}'],
        ['/node', '{"label":"p","node_type":"Concept","props":{"\\u005f_proto__":{"polluted":1}}}'],
        ['/node', '{"label":"p","node_type":"Concept","props":{"constructor":{"prototype":{"polluted":1}}}}'],
        ['/batch', '{"nodes":[{"label":"p","node_type":"Concept","props":{"__proto__":{"x":1}}}]}'],
      ]) {
        const r = await k.post(path, undefined, { raw });
        expect([path, raw, r.status, r.body?.code]).toEqual([path, raw, 400, 'invalid_json']);
        expect(r.body.error).toMatch(/__proto__|prototype/);
        expect(r.headers.get('x-request-id')).toBeTruthy();
      }
      expect((await k.get('/nodes')).body.items).toEqual([]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('"constructor" and "prototype" as ordinary keys or values still work', async () => {
      const r = await c.post('/reality/capture', { action: 'source', label: 'constructor', props: { title: 'prototype' } });
      expect(r.status).toBe(201);
    });
  });
});
