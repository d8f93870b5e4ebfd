import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, request, signUp } from '../support/http';

/**
 * Two organizations with data. Every graph route tried with organization B's credentials
 * (API key and user JWT) and organization A's uids reads nothing and changes nothing: single
 * objects answer 404 (not 403, so existence does not leak), lists never show A's data.
 */
describe('tenant isolation', () => {
  let t: TestApp;
  const A: Record<string, string> = {};
  let keyA: string;
  let credsB: [string, string][];
  let snapshot: string;

  async function stateOfA(): Promise<string> {
    const c = api(t.url, keyA);
    const parts = [
      (await c.get(`/node/${A.n1}`)).text,
      (await c.get(`/node/${A.n2}`)).text,
      (await c.get(`/node/${A.n1}/history`)).text,
      (await c.get('/nodes?include_tombstoned=true')).text,
      (await c.get(`/edges?from_uid=${A.n1}&include_tombstoned=true`)).text,
      (await c.get(`/edge/${A.e1}/history`)).text,
    ];
    return parts.join('\n');
  }

  beforeAll(async () => {
    t = await startTestApp();
    const a = await signUp(t.url, { org: 'Org A' });
    keyA = (await createApiKey(t.url, a.access_token, { agent_id: 'agent-a' })).key;
    const ca = api(t.url, keyA);
    A.n1 = (await ca.post('/node', { label: 'secret alpha', node_type: 'Concept' })).body.uid;
    A.n2 = (await ca.post('/node', { label: 'secret beta', node_type: 'Concept' })).body.uid;
    const link = await ca.post('/link', { from_uid: A.n1, to_uid: A.n2, edge_type: 'RelatedTo' });
    expect(link.status).toBe(201);
    A.e1 = link.body.uid;

    const b = await signUp(t.url, { org: 'Org B' });
    const keyB = (await createApiKey(t.url, b.access_token)).key;
    const cb = api(t.url, keyB);
    A.b1 = (await cb.post('/node', { label: 'b own node', node_type: 'Concept' })).body.uid;
    credsB = [
      ['api key', keyB],
      ['user jwt', b.access_token],
    ];
    snapshot = await stateOfA();
    expect(snapshot).toContain('secret alpha');
  });
  afterAll(() => t.close());

  it("single-object routes answer 404 for the other organization's uids", async () => {
    for (const [kind, token] of credsB) {
      const routes: [string, string, unknown?][] = [
        ['GET', `/node/${A.n1}`],
        ['PATCH', `/node/${A.n1}`, { label: 'hijacked' }],
        ['DELETE', `/node/${A.n1}`],
        ['GET', `/node/${A.n1}/history`],
        ['GET', `/node/${A.n1}/history/1`],
        ['POST', '/link', { from_uid: A.n1, to_uid: A.n2, edge_type: 'RelatedTo' }],
        ['POST', '/edge', { from_uid: A.b1, to_uid: A.n2, edge_type: 'RelatedTo' }],
        ['POST', '/edge', { from_uid: A.n1, to_uid: A.b1, edge_type: 'RelatedTo' }],
        ['PATCH', `/edge/${A.e1}`, { weight: 0.1 }],
        ['DELETE', `/edge/${A.e1}`],
        ['GET', `/edge/${A.e1}/history`],
      ];
      for (const [method, p, body] of routes) {
        const r = await request(t.url, method, p, { token, body });
        expect([kind, method, p, r.status, r.body?.code]).toEqual([kind, method, p, 404, 'not_found']);
        expect(r.text).not.toContain('secret');
      }
    }
  });

  it("lists and bulk routes never show the other organization's data", async () => {
    for (const [kind, token] of credsB) {
      const c = api(t.url, token);
      // routes that are not given A's uids must not mention them at all
      for (const r of [await c.get('/nodes?include_tombstoned=true'), await c.get('/agent/agent-a/nodes')]) {
        expect([kind, r.status]).toEqual([kind, 200]);
        for (const v of [A.n1, A.n2, A.e1, 'secret']) expect(r.text).not.toContain(v);
      }
      // routes given A's uids may echo them (e.g. as `missing`) but return none of A's objects
      const withUids = [
        await c.post('/nodes/batch', { uids: [A.n1, A.n2] }),
        await c.get(`/edges?from_uid=${A.n1}`),
        await c.get(`/edge/between?from_uid=${A.n1}&to_uid=${A.n2}`),
        await c.post('/edges/batch', { uids: [A.n1, A.n2] }),
      ];
      for (const r of withUids) {
        expect([kind, r.status < 500]).toEqual([kind, true]);
        for (const v of [A.e1, 'secret', 'RelatedTo']) expect(r.text).not.toContain(v);
      }
      expect(withUids[0].body.nodes ?? withUids[0].body).toEqual([]);
      const del = await c.post('/nodes/delete', { uids: [A.n1, A.n2] });
      expect(del.status < 500).toBe(true);
    }
  });

  it('organization A is exactly as it was', async () => {
    expect(await stateOfA()).toBe(snapshot);
    const n1 = await api(t.url, keyA).get(`/node/${A.n1}`);
    expect(n1.body).toMatchObject({ label: 'secret alpha', version: 1, tombstone_at: null });
  });
});
