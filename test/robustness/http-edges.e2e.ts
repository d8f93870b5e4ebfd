import * as net from 'node:net';
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

  describe('bodies that are not UTF-8 (REFERENCE §1.1)', () => {
    it('are 400 invalid_json saying so, and nothing is written', async () => {
      const before = (await c.get('/stats')).body.total_nodes;
      for (const bytes of [Buffer.from([0xff]), Buffer.from([0xc3, 0x28]), Buffer.from([0xed, 0xa0, 0x80])]) {
        const body = Buffer.concat([Buffer.from('{"label":"'), bytes, Buffer.from('","node_type":"Goal"}')]);
        const res = await fetch(`${t.url}/node`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
        const json = (await res.json()) as { code: string; error: string };
        expect([res.status, json.code]).toEqual([400, 'invalid_json']);
        expect(json.error).toMatch(/UTF-8/);
        expect(res.headers.get('x-request-id')).toBeTruthy();
      }
      // real multi-byte characters are fine
      const ok = await fetch(`${t.url}/node`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: Buffer.from('{"label":"Ça marche 😀","node_type":"Goal"}') });
      expect(ok.status).toBe(201);
      expect(((await ok.json()) as { label: string }).label).toBe('Ça marche 😀');
      expect((await c.get('/stats')).body.total_nodes).toBe(before + 1);
    });
  });

  describe('deeply nested bodies (one guard in the JSON parser)', () => {
    // an object nested `levels` deep, counting the innermost {} as one level
    const deep = (levels: number): unknown => {
      let v: unknown = {};
      for (let i = 1; i < levels; i++) v = { a: v };
      return v;
    };
    const deepText = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

    it('POST /node: 64 levels in all are accepted; deeper is 400 invalid_json naming the limit, and nothing is written', async () => {
      const o = await signUp(t.url);
      const k = api(t.url, (await createApiKey(t.url, o.access_token)).key);
      // root (1) → props (2) → input_snapshot (3) → … : 62 levels inside input_snapshot make 64
      const ok = await k.post('/node', { label: 'deep ok', node_type: 'Execution', props: { description: 'd', input_snapshot: deep(62) } });
      expect(ok.status).toBe(201);
      for (const levels of [63, 1000, 5000]) {
        const raw = `{"label":"too deep","node_type":"Execution","props":{"description":"d","input_snapshot":${deepText(levels)}}}`;
        const r = await k.post('/node', undefined, { raw });
        expect([levels, r.status, r.body?.code]).toEqual([levels, 400, 'invalid_json']);
        expect(r.body.error).toMatch(/deeper than 64 levels/);
      }
      const arrays = await k.post('/node', undefined, { raw: '{"label":"x","node_type":"Concept","props":{"definition":' + '['.repeat(1000) + ']'.repeat(1000) + '}}' });
      expect([arrays.status, arrays.body.code]).toEqual([400, 'invalid_json']);
      expect((await k.get('/nodes')).body.items.map((n: { label: string }) => n.label)).toEqual(['deep ok']);
      // later reads that go through SQLite's JSON functions keep working
      const fuzzy = await k.post('/reality/entity', { action: 'fuzzy_resolve', text: 'deep' });
      expect(fuzzy.status).toBe(200);
    });

    it('a huge, deeply nested body is refused quickly', async () => {
      const raw = '{"label":"x","props":{"a":' + '['.repeat(4_000_000) + ']'.repeat(4_000_000) + '}}';
      const parse = jest.spyOn(JSON, 'parse');
      try {
        const r = await c.post('/node', undefined, { raw });
        expect([r.status, r.body.code]).toEqual([400, 'invalid_json']);
        // refused by the depth scan, which stops at the limit: the body is never parsed
        expect(parse.mock.calls.some(([text]) => typeof text === 'string' && text.length >= raw.length)).toBe(false);
      } finally {
        parse.mockRestore();
      }
    });

    it('POST /import goes through the same guard', async () => {
      const o = await signUp(t.url);
      const k = api(t.url, (await createApiKey(t.url, o.access_token)).key);
      const node = { uid: 'deep-1', node_type: 'Execution', layer: 'agent', label: 'deep', props: { _type: 'Execution', description: 'd', input_snapshot: JSON.parse(deepText(1000)) } };
      const r = await k.post('/import', { format: 'strata.graph', format_version: 1, nodes: [node] });
      expect([r.status, r.body.code]).toEqual([400, 'invalid_json']);
      expect(r.body.error).toMatch(/deeper than 64 levels/);
      const proto = await k.post('/import', undefined, { raw: '{"format":"strata.graph","format_version":1,"nodes":[{"uid":"p-1","__proto__":{"x":1}}]}' });
      expect([proto.status, proto.body.code]).toEqual([400, 'invalid_json']);
      expect((await k.get('/nodes')).body.items).toEqual([]);
    });
  });

  describe('empty bodies (REFERENCE §1.1, §1.10)', () => {
    it('on a route with a required field, an empty body is 400 invalid_json and nothing is written', async () => {
      const owner = await signUp(t.url);
      const freshKey = (await createApiKey(t.url, owner.access_token, { scopes: ['read', 'write'] })).key;
      const fresh = api(t.url, freshKey);
      for (const [method, path, token] of [
        ['POST', '/node', freshKey],
        ['POST', '/edge', freshKey],
        ['POST', '/reality/capture', freshKey],
        ['POST', '/v1/briefings/schedules', owner.access_token],
      ]) {
        for (const raw of ['', '  \n']) {
          const r = await request(t.url, method, path, { token, raw });
          expect([method, path, JSON.stringify(raw), r.status, r.body?.code]).toEqual([method, path, JSON.stringify(raw), 400, 'invalid_json']);
        }
      }
      expect((await fresh.get('/stats')).body.total_nodes).toBe(0);
    });

    it('routes without a required field still read an empty body as {}', async () => {
      const freshKey = (await createApiKey(t.url, (await signUp(t.url)).access_token, { scopes: ['read', 'write'] })).key;
      const fresh = api(t.url, freshKey);
      const uid = (await fresh.post('/node', { label: 'kept', node_type: 'Concept' })).body.uid;
      for (const [method, path] of [
        ['POST', '/ingest/cleanup'],
        ['DELETE', `/node/${uid}`],
        ['POST', '/clear'],
      ]) {
        const r = await request(t.url, method, path, { token: freshKey, raw: '' });
        expect([method, path, r.status]).toEqual([method, path, 200]);
      }
    });
  });

  describe('authentication before the body (REFERENCE §4.0 step 1, §1.11)', () => {
    const bad: [string, Record<string, string>][] = [
      ['{bad', { 'content-type': 'application/json' }],
      ['{"a":' + '['.repeat(100) + ']'.repeat(100) + '}', { 'content-type': 'application/json' }],
      ['{"__proto__":{}}', { 'content-type': 'application/json' }],
      ['plain text', { 'content-type': 'text/plain' }],
      ['{}', {}],
    ];
    const send = (method: string, path: string, raw: string, headers: Record<string, string>) =>
      fetch(t.url + path, { method, headers, body: raw }).then(async (r) => ({ status: r.status, body: (await r.json()) as any, headers: r.headers }));

    it('no credential: 401 unauthorized whatever the body, on every protected route kind', async () => {
      for (const [method, path] of [
        ['POST', '/reality/capture'],
        ['POST', '/node'],
        ['PATCH', '/node/some-uid'],
        ['DELETE', '/node/some-uid'],
        ['POST', '/import'],
        ['POST', '/v1/api-keys'],
        ['POST', '/v1/orgs'],
      ]) {
        for (const [raw, headers] of bad) {
          const r = await send(method, path, raw, headers);
          expect([method, path, raw.slice(0, 20), r.status, r.body]).toEqual([method, path, raw.slice(0, 20), 401, { error: 'missing Authorization: Bearer <token> header', code: 'unauthorized' }]);
          expect(r.headers.get('www-authenticate')).toBe('Bearer realm="strata"');
          expect(r.headers.get('x-request-id')).toBeTruthy();
        }
      }
    });

    it('a bad or malformed credential: 401 invalid_token whatever the body', async () => {
      for (const authorization of ['Bearer strata_unknownkey0000000000000000000000000000', 'Bearer not-a-jwt', 'Bearer x y']) {
        for (const [raw, headers] of bad) {
          const r = await send('POST', '/reality/capture', raw, { ...headers, authorization });
          expect([authorization, raw.slice(0, 20), r.status, r.body.code]).toEqual([authorization, raw.slice(0, 20), 401, 'invalid_token']);
          expect(r.headers.get('www-authenticate')).toBe('Bearer realm="strata", error="invalid_token"');
        }
      }
    });

    it('an unauthenticated body over the size limit is 401, not 413: it is not read', async () => {
      const r = await send('POST', '/node', '{"label":"' + 'x'.repeat(11 * 1024 * 1024) + '"}', { 'content-type': 'application/json' });
      expect([r.status, r.body.code]).toEqual([401, 'unauthorized']);
    });

    it('authenticated: the body errors are unchanged', async () => {
      const authorization = `Bearer ${key}`;
      expect((await send('POST', '/reality/capture', '{bad', { 'content-type': 'application/json', authorization })).body.code).toBe('invalid_json');
      expect((await send('POST', '/reality/capture', 'x', { 'content-type': 'text/plain', authorization })).status).toBe(415);
      const big = await send('POST', '/node', '{"label":"' + 'x'.repeat(11 * 1024 * 1024) + '"}', { 'content-type': 'application/json', authorization });
      expect([big.status, big.body.code]).toEqual([413, 'payload_too_large']);
    });

    it('public routes and unknown routes are not affected', async () => {
      for (const path of ['/v1/auth/signup', '/v1/auth/login', '/v1/auth/refresh']) {
        const r = await send('POST', path, '{bad', { 'content-type': 'application/json' });
        expect([path, r.status, r.body.code]).toEqual([path, 400, 'invalid_json']);
        const typed = await send('POST', path, 'x', { 'content-type': 'text/plain', authorization: 'Bearer bogus' });
        expect([path, typed.status]).toEqual([path, 415]);
      }
      const unknown = await send('POST', '/no/such/route', '{}', { 'content-type': 'application/json' });
      expect([unknown.status, unknown.body.code]).toEqual([404, 'route_not_found']);
    });
  });

  describe('trailing slashes and wrong methods (REFERENCE §1.10)', () => {
    it('a path with a trailing slash is no route: 404 route_not_found, never a 405 whose Allow lists the method', async () => {
      const uid = (await c.post('/node', { label: 'slash', node_type: 'Concept' })).body.uid;
      for (const [method, path, token] of [
        ['GET', '/nodes/', key],
        ['GET', '/stats/', key],
        ['GET', '/goals/', key],
        ['GET', '/jobs/', key],
        ['GET', `/node/${uid}/`, key],
        ['GET', `/node/${uid}/history/`, key],
        ['PATCH', `/node/${uid}/`, key],
        ['PUT', `/node/${uid}/`, key],
        ['GET', '/v1/account/', jwt],
        ['POST', '/node/', key],
        ['POST', '/search/', key],
        ['POST', '/retrieve/', key],
      ]) {
        const r = await request(t.url, method, path, { token, body: method === 'GET' ? undefined : {} });
        expect([method, path, r.status, r.body?.code, r.headers.get('allow')]).toEqual([method, path, 404, 'route_not_found', null]);
        expect(r.headers.get('x-request-id')).toBeTruthy();
      }
      // the documented paths still answer, and a real method mismatch is still a 405 whose Allow omits the method
      expect((await c.get('/nodes')).status).toBe(200);
      expect((await c.get(`/node/${uid}`)).status).toBe(200);
      for (const [method, path, allow] of [
        ['DELETE', '/nodes', 'GET'],
        ['PUT', `/node/${uid}`, 'DELETE, GET, PATCH'],
        ['GET', '/search', 'POST'],
      ]) {
        const r = await request(t.url, method, path, { token: key });
        expect([method, path, r.status, r.body?.code, r.headers.get('allow')]).toEqual([method, path, 405, 'method_not_allowed', allow]);
        expect(allow.split(', ')).not.toContain(method);
      }
    });
  });

  describe('requests the HTTP parser refuses (REFERENCE §1.10, §1.1)', () => {
    /** one raw request on its own connection; the answer as read until the server closes */
    const rawExchange = (text: string) =>
      new Promise<{ status: number; headers: Record<string, string>; body: any }>((resolve, reject) => {
        const u = new URL(t.url);
        const socket = net.connect(Number(u.port), u.hostname, () => socket.write(text));
        const chunks: Buffer[] = [];
        socket.on('data', (d) => chunks.push(d));
        socket.on('error', reject);
        socket.on('close', () => {
          const all = Buffer.concat(chunks).toString('utf8');
          const [head, ...rest] = all.split('\r\n\r\n');
          const [statusLine, ...lines] = head.split('\r\n');
          const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
          let body: unknown = null;
          try {
            body = JSON.parse(rest.join('\r\n\r\n'));
          } catch {
            body = rest.join('\r\n\r\n');
          }
          resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
        });
      });

    it('answer in the Strata shape with a code and X-Request-Id', async () => {
      for (const [what, text, status, code] of [
        ['header too large', `GET /nodes?limit=1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nX-Big: ${'h'.repeat(20_000)}\r\n\r\n`, 431, 'payload_too_large'],
        ['query string too long', `GET /nodes?${'q'.repeat(20_000)}=1 HTTP/1.1\r\nHost: x\r\n\r\n`, 431, 'payload_too_large'],
        ['bad Content-Length', 'GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400, 'invalid_field'],
        ['Content-Length and Transfer-Encoding', 'POST /node HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}', 400, 'invalid_field'],
        ['bad request line', 'GET /health HTTP/9z\r\nHost: x\r\n\r\n', 400, 'invalid_field'],
      ] as const) {
        const r = await rawExchange(text);
        expect([what, r.status, r.body?.code, typeof r.body?.error]).toEqual([what, status, code, 'string']);
        expect(Object.keys(r.body).sort()).toEqual(['code', 'error']);
        expect(r.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
        expect(r.headers['content-type']).toMatch(/^application\/json/);
        expect(Number(r.headers['content-length'])).toBe(Buffer.byteLength(JSON.stringify(r.body)));
      }
      // the server is unaffected
      expect((await c.get('/nodes?limit=1')).status).toBe(200);
    });
  });

  describe('request ids (REFERENCE §1.1)', () => {
    it('echo any value the client sent, byte for byte, on success and error answers and on the fast lane', async () => {
      const uid = (await c.post('/node', { label: 'rid', node_type: 'Concept' })).body.uid;
      // fetch sends and reads header text one byte per character (latin1)
      for (const id of ['has space', 'semi;colon', 'a,b "quoted"', 'tab\there', 'ünï', 'x'.repeat(129), 'y'.repeat(1024)]) {
        for (const [path, token] of [['/nodes?limit=0', key], [`/node/${uid}`, key], ['/no/such/route', key], ['/nodes', undefined], ['/health', undefined]] as const) {
          const r = await request(t.url, 'GET', path, { token, headers: { 'x-request-id': id } });
          expect([id.slice(0, 20), path, r.headers.get('x-request-id')]).toEqual([id.slice(0, 20), path, id]);
        }
      }
    });

    it('echo UTF-8 bytes (as curl sends them) byte for byte', async () => {
      const u = new URL(t.url);
      const id = Buffer.from('ünï 😀 日本', 'utf8');
      for (const path of ['/health', '/nodes?limit=0', '/no/such/route']) {
        const head = Buffer.concat([Buffer.from(`GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nX-Request-Id: `), id, Buffer.from('\r\n\r\n')]);
        const answer = await new Promise<Buffer>((resolve, reject) => {
          const socket = net.connect(Number(u.port), u.hostname, () => socket.write(head));
          const chunks: Buffer[] = [];
          socket.on('data', (d) => chunks.push(d));
          socket.on('error', reject);
          socket.on('close', () => resolve(Buffer.concat(chunks)));
        });
        const at = answer.indexOf('x-request-id: ', 0, 'latin1');
        expect([path, at > 0]).toEqual([path, true]);
        expect(answer.subarray(at + 'x-request-id: '.length, answer.indexOf('\r\n', at)).equals(id)).toBe(true);
      }
    });

    it('over 1024 bytes is still echoed whole and answered; what events record is its first 1024 characters', async () => {
      const long = 'z'.repeat(5000);
      const r = await request(t.url, 'POST', '/node', { token: key, headers: { 'x-request-id': long }, body: { label: 'long id', node_type: 'Claim' } });
      expect(r.status).toBe(201);
      expect(r.headers.get('x-request-id')).toBe(long);
    });

    it('a blank or absent header gets a generated id', async () => {
      for (const headers of [{}, { 'x-request-id': '' }, { 'x-request-id': '   ' }] as Record<string, string>[]) {
        const r = await request(t.url, 'GET', '/nodes?limit=0', { token: key, headers });
        expect(r.status).toBe(200);
        expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      }
    });
  });
});
