import { CLASSIFICATIONS, Classification } from '@strata/domain/governance';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * The sweep of REFERENCE §13.1: a spaced node at each classification, and for each kind of
 * principal every read route that could reveal it. A node the principal may not read must not
 * appear anywhere — not its uid, not its label, not an edge touching it.
 */
describe('nothing spaced leaks (REFERENCE §13.1)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  let o: Api;
  const nodes: Record<Classification, { claim: string; goal: string; edges: string[] }> = {} as never;
  let anchor: string;
  const principals: { name: string; c: Api; sees: readonly Classification[] }[] = [];

  beforeAll(async () => {
    t = await startTestApp({ clock });
    const owner = await signUp(t.url);
    o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Vault', node_type: 'Space' })).body.uid;
    const elsewhere = (await o.post('/node', { label: 'Elsewhere', node_type: 'Space' })).body.uid;
    // every spaced write below is then named in a policy decision, which the audit route shows
    await o.post('/v1/governance/policies', { name: 'watch claims and goals', effect: 'allow', match: { node_types: ['Claim', 'Goal'], spaces: [space] }, status: 'shadow' });
    anchor = (await o.post('/node', { label: 'Anchor claim', node_type: 'Claim', props: { content: 'anchor' } })).body.uid;
    for (const level of CLASSIFICATIONS) {
      const claim = (await o.post('/node', { label: `zqleak ${level} claim ${level}marker`, node_type: 'Claim', confidence: 0.2, classification: level, space_uid: space, props: { content: `zqleak ${level}` } })).body.uid;
      const goal = (await o.post('/node', { label: `zqleak ${level} goal ${level}marker`, node_type: 'Goal', classification: level, space_uid: space, props: { description: `zqleak ${level}`, status: 'active' } })).body.uid;
      const contra = (await o.post('/edge', { from_uid: anchor, to_uid: claim, edge_type: 'Contradicts' })).body.uid;
      const related = (await o.post('/edge', { from_uid: anchor, to_uid: goal, edge_type: 'RelatedTo' })).body.uid;
      nodes[level] = { claim, goal, edges: [contra, related] };
    }
    const join = async (role: string) => {
      const u = await signUp(t.url);
      await o.post(`/v1/orgs/${owner.org_id}/members`, { email: u.email, role });
      return u;
    };
    const member = await join('member');
    await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${member.user_id}`, access: 'read', classification_ceiling: 'internal' });
    const bare = await join('member');
    const key = (opts: Parameters<typeof createApiKey>[2]) => createApiKey(t.url, owner.access_token, opts).then((k) => api(t.url, k.key));
    principals.push(
      { name: 'owner JWT', c: o, sees: CLASSIFICATIONS },
      { name: 'member JWT, read grant up to internal', c: api(t.url, member.access_token, { org: owner.org_id }), sees: ['public', 'internal'] },
      { name: 'member JWT without grant', c: api(t.url, bare.access_token, { org: owner.org_id }), sees: [] },
      { name: 'full key', c: await key({ scopes: ['read', 'write'] }), sees: CLASSIFICATIONS },
      { name: 'read-only key', c: await key({ scopes: ['read'] }), sees: CLASSIFICATIONS },
      { name: 'Space-scoped key (the Space)', c: await key({ space_uids: [space] }), sees: CLASSIFICATIONS },
      { name: 'Space-scoped key (another Space)', c: await key({ space_uids: [elsewhere] }), sees: [] },
      { name: 'agent-bound key, agent without grant', c: await key({ agent_id: 'no-grant-agent' }), sees: [] },
    );
  });
  afterAll(() => t.close());

  type Route = [name: string, call: () => Promise<{ status: number; text: string }>, named?: string[]];
  /** Every read route that could reveal a spaced node: [name, call, the uids the request names itself (a 404 may echo them)]. */
  function routes(c: Api): Route[] {
    const all = CLASSIFICATIONS.flatMap((l) => [nodes[l].claim, nodes[l].goal]);
    const edges = CLASSIFICATIONS.flatMap((l) => nodes[l].edges);
    return [
      ...all.map((u): Route => [`GET /node/${u}`, () => c.get(`/node/${u}`), [u]]),
      ...all.map((u): Route => [`GET /node/${u}/history`, () => c.get(`/node/${u}/history`), [u]]),
      ...edges.map((u): Route => [`GET /edge/${u}/history`, () => c.get(`/edge/${u}/history`), [u]]),
      ['GET /nodes', () => c.get('/nodes?limit=1000')],
      ['GET /nodes?node_type=Claim', () => c.get('/nodes?node_type=Claim&limit=1000')],
      ['POST /nodes/batch', () => c.post('/nodes/batch', { uids: all }), all],
      ['GET /edges', () => c.get(`/edges?from_uid=${anchor}`)],
      ['POST /edges/batch', () => c.post('/edges/batch', { uids: [anchor, ...all] }), all],
      ['GET /edge/between', () => c.get(`/edge/between?from_uid=${anchor}&to_uid=${nodes.restricted.claim}`), [nodes.restricted.claim]],
      ['POST /search', () => c.post('/search', { query: 'zqleak' })],
      ['POST /retrieve text', () => c.post('/retrieve', { action: 'text', query: 'zqleak', limit: 100 })],
      ['POST /retrieve hybrid', () => c.post('/retrieve', { action: 'hybrid', query: 'zqleak', k: 100 })],
      ['POST /retrieve weak_claims', () => c.post('/retrieve', { action: 'weak_claims', limit: 100 })],
      ['POST /retrieve active_goals', () => c.post('/retrieve', { action: 'active_goals', limit: 100 })],
      ['POST /retrieve unresolved_contradictions', () => c.post('/retrieve', { action: 'unresolved_contradictions', limit: 100 })],
      ['POST /retrieve recent', () => c.post('/retrieve', { action: 'recent', limit: 1000 })],
      ['POST /retrieve layer', () => c.post('/retrieve', { action: 'layer', layer: 'epistemic', limit: 1000 })],
      ['POST /retrieve/context', () => c.post('/retrieve/context', { query: 'zqleak' })],
      ['GET /claims/weak', () => c.get('/claims/weak')],
      ['GET /goals', () => c.get('/goals')],
      ['GET /contradictions', () => c.get('/contradictions')],
      ['GET /neighborhood', () => c.get(`/neighborhood/${anchor}`)],
      ['POST /traverse', () => c.post('/traverse', { action: 'neighborhood', start_uid: anchor, max_depth: 2 })],
      ['GET /stats', () => c.get('/stats')],
      ['GET /export', () => c.get('/export')],
      ['POST /retrieve curation_counts', () => c.post('/retrieve', { action: 'curation_counts' })],
      ['GET /v1/governance/audit', () => c.get('/v1/governance/audit?limit=500')],
      ['GET /v1/governance/policies', () => c.get('/v1/governance/policies')],
    ];
  }

  const markers = (l: Classification) => [nodes[l].claim, nodes[l].goal, ...nodes[l].edges, `${l}marker`];

  it('for each principal, every read route shows exactly the spaced nodes it may read', async () => {
    const leaks: string[] = [];
    for (const p of principals) {
      const hidden = CLASSIFICATIONS.filter((l) => !p.sees.includes(l));
      for (const [name, call, named = []] of routes(p.c)) {
        const r = await call();
        for (const l of hidden) for (const m of markers(l)) if (!named.includes(m) && r.text.includes(m)) leaks.push(`${p.name}: ${name} reveals ${l} (${m})`);
      }
      // the ones it may read are really there: the sweep is not blind
      for (const l of p.sees) expect([p.name, l, (await p.c.get(`/node/${nodes[l].claim}`)).status]).toEqual([p.name, l, 200]);
      for (const l of hidden) expect([p.name, l, (await p.c.get(`/node/${nodes[l].claim}`)).status]).toEqual([p.name, l, 404]);
    }
    expect(leaks).toEqual([]);
  });

  it('the routes of the sweep do reveal spaced nodes to a principal that may read them', async () => {
    const blind: string[] = [];
    for (const [name, call] of routes(o)) {
      if (name === 'GET /stats' || name.includes('curation_counts') || name === 'POST /retrieve/context' || name === 'GET /v1/governance/policies') continue;
      const r = await call();
      if (name.startsWith('GET /node/') || name.startsWith('GET /edge/')) continue;
      if (!CLASSIFICATIONS.some((l) => markers(l).some((m) => r.text.includes(m)))) blind.push(`${name} (${r.status})`);
    }
    expect(blind).toEqual([]);
  });
});
