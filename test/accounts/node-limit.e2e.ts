import { api, Api, createApiKey, signUp } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { WRITE_CALLS } from '../cognitive/cognitive-fixture';

/**
 * docs/auth.md: going over the plan's node limit answers 403 plan_limit_reached — on every
 * route that creates nodes, counting every node the request would add, with nothing written.
 */
describe('plan node limit on every route that creates nodes', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ planLimits: { free: { nodes: 3 } } });
  });
  afterAll(() => t.close());

  async function freshOrg(): Promise<{ c: Api; token: string }> {
    const s = await signUp(t.url);
    const key = await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] });
    return { c: api(t.url, key.key), token: s.access_token };
  }
  const concept = (label: string) => ({ label, node_type: 'Concept' });
  const liveCount = async (c: Api) => (await c.get('/nodes?limit=1000')).body.items.length as number;
  const allCount = async (c: Api) => (await c.get('/nodes?limit=1000&include_tombstoned=true')).body.items.length as number;
  const usage = async (c: Api) => (await c.get('/v1/usage')).body.nodes;
  const refused = (r: { status: number; body: any }, current = 3) =>
    expect([r.status, r.body.code, r.body.limit, r.body.max, r.body.current]).toEqual([403, 'plan_limit_reached', 'nodes', 3, current]);

  it('/batch counts all the nodes it would create: 5 with 2 places left is refused whole', async () => {
    const { c } = await freshOrg();
    expect((await c.post('/node', concept('one'))).status).toBe(201);
    const five = await c.post('/batch', {
      nodes: ['a', 'b', 'c', 'd', 'e'].map((l) => ({ ...concept(l), ref: l })),
      edges: [{ from_ref: 'a', to_ref: 'b', edge_type: 'RelatedTo' }],
    });
    refused(five, 1);
    expect(await allCount(c)).toBe(1);
    expect((await c.get('/stats')).body.total_edges).toBe(0);
    expect((await c.post('/batch', { nodes: [concept('a'), concept('b')] })).status).toBe(201);
    refused(await c.post('/batch', { nodes: [concept('c')] }));
    expect(await usage(c)).toEqual({ used: 3, limit: 3 });
  });

  describe('at the limit', () => {
    let c: Api;
    let existing: string[];
    beforeAll(async () => {
      ({ c } = await freshOrg());
      existing = [];
      for (const l of ['Ada', 'Bob', 'Cy']) existing.push((await c.post('/node', { label: l, node_type: 'Person' })).body.uid);
    });

    it.each(WRITE_CALLS)('%s: 403 plan_limit_reached, nothing written', async (path, body) => {
      const r = await c.post(path, body);
      refused(r);
      expect(await allCount(c)).toBe(3);
    });

    it('/reality/entity create of a new entity is refused; finding an existing one is not', async () => {
      refused(await c.post('/reality/entity', { action: 'create', label: 'Dee', props: { entity_type: 'Person' } }));
      const found = await c.post('/reality/entity', { action: 'create', label: 'Ada', props: { entity_type: 'Person' } });
      expect(found.status).toBe(200);
      expect(found.body.uid).toBe(existing[0]);
      expect(await allCount(c)).toBe(3);
    });

    it('POST /import of new nodes is refused whole; nodes that arrive tombstoned do not count', async () => {
      const snap = (await c.get('/export')).body;
      const live = { ...snap.nodes[0], uid: 'imported-1', label: 'imported' };
      const dead = { ...live, uid: 'imported-2', tombstone_at: live.updated_at, tombstone_reason: 'old' };
      const body = { format: 'strata.graph', format_version: 1, nodes: [live, dead], edges: [], aliases: [], embeddings: null, series_points: [] };
      refused(await c.post('/import', body));
      expect(await allCount(c)).toBe(3);
      const r = await c.post('/import', { ...body, nodes: [dead] });
      expect([r.status, r.body.nodes_imported]).toEqual([200, 1]);
      expect(await liveCount(c)).toBe(3);
    });

    it('/evolve restore is refused while full; a tombstone frees the place', async () => {
      expect((await c.delete(`/node/${existing[2]}`)).status).toBe(200);
      expect((await c.post('/node', { label: 'Eve', node_type: 'Person' })).status).toBe(201);
      refused(await c.post('/evolve', { action: 'restore', uid: existing[2] }));
      expect((await c.get(`/node/${existing[2]}`)).body.tombstone_at).not.toBeNull();
    });

    it('writes that add no node still work: update, link, tombstone', async () => {
      expect((await c.patch(`/node/${existing[0]}`, { label: 'Ada L.' })).status).toBe(200);
      expect((await c.post('/link', { from_uid: existing[0], to_uid: existing[1], edge_type: 'RelatedTo' })).status).toBe(201);
      expect((await c.post('/evolve', { action: 'tombstone', uid: existing[1] })).status).toBe(200);
      expect((await c.post('/evolve', { action: 'restore', uid: existing[1] })).status).toBe(200); // its own place back
    });

    it('GET /v1/usage never shows more used than the limit', async () => {
      expect(await usage(c)).toEqual({ used: 3, limit: 3 });
      expect(await liveCount(c)).toBe(3);
    });
  });

  it('concurrent batches through different routes never go over the limit', async () => {
    const { c } = await freshOrg();
    const rs = await Promise.all([
      c.post('/batch', { nodes: [concept('a'), concept('b')] }),
      c.post('/batch', { nodes: [concept('c'), concept('d')] }),
      c.post('/epistemic/argument', { claim: { label: 'x' }, evidence: [{ label: 'y' }] }),
      c.post('/node', concept('e')),
      c.post('/reality/capture', { action: 'observation', label: 'f' }),
    ]);
    expect(rs.filter((r) => r.status !== 201).every((r) => r.body.code === 'plan_limit_reached')).toBe(true);
    expect(await liveCount(c)).toBeLessThanOrEqual(3);
    expect((await usage(c)).used).toBe(await liveCount(c));
  });
});
