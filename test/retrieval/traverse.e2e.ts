import { expectError, link, mk, newOrg, startRetrieval, RetrievalFixture } from './retrieval-fixture';

/**
 * Graph used throughout (weights in brackets):
 *   ev ─Supports[0.9]→ claim ─HasPremise[0.8]→ premise
 *   claim ─RelatedTo[0.5]→ other ─RelatedTo[0.5]→ far
 *   weak ─Refutes[0.1]→ claim ; ev ─DerivedFrom[0.85]→ far ; claim ─Supports[0.2]→ far
 *   dead (tombstoned, no cascade) ←RelatedTo[1.0]─ claim ; dead ─RelatedTo→ beyond
 */
describe('traversal routes', () => {
  let f: RetrievalFixture;
  const u: Record<string, string> = {};
  const e: Record<string, string> = {};

  beforeAll(async () => {
    f = await startRetrieval();
    for (const [k, t] of [['ev', 'Evidence'], ['claim', 'Claim'], ['premise', 'Claim'], ['other', 'Claim'], ['far', 'Claim'], ['weak', 'Claim'], ['dead', 'Claim'], ['beyond', 'Claim']] as const)
      u[k] = await mk(f.w, t, `node ${k}`);
    e.evClaim = await link(f.w, u.ev, u.claim, 'Supports', { weight: 0.9, confidence: 0.5 });
    e.claimPremise = await link(f.w, u.claim, u.premise, 'HasPremise', { weight: 0.8 });
    e.claimOther = await link(f.w, u.claim, u.other, 'RelatedTo', { weight: 0.5 });
    e.otherFar = await link(f.w, u.other, u.far, 'RelatedTo', { weight: 0.5 });
    e.weakClaim = await link(f.w, u.weak, u.claim, 'Refutes', { weight: 0.1 });
    e.evFar = await link(f.w, u.ev, u.far, 'DerivedFrom', { weight: 0.85 });
    e.claimFar = await link(f.w, u.claim, u.far, 'Supports', { weight: 0.2 });
    e.claimDead = await link(f.w, u.claim, u.dead, 'RelatedTo', { weight: 1.0 });
    e.deadBeyond = await link(f.w, u.dead, u.beyond, 'RelatedTo', { weight: 1.0 });
    const t = await f.w.post('/evolve', { action: 'tombstone', uid: u.dead });
    expect(t.status).toBe(200);
  }, 60_000);
  afterAll(() => f.close());

  const steps = (r: any) => r.body.steps.map((s: any) => s.node_uid);

  it('neighborhood: start excluded, cheapest selected path, PathStep shape and order', async () => {
    const r = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ mode: 'neighborhood', start_uid: u.claim, max_depth: 2, truncated: false });
    expect(steps(r)).not.toContain(u.claim);
    expect(steps(r)).not.toContain(u.dead);
    expect(steps(r)).not.toContain(u.beyond);
    const far = r.body.steps.find((s: any) => s.node_uid === u.far);
    // via ev: 0.9·0.85 (cost 0.27) beats the direct Supports at 0.2 (cost 1.61) and via other (1.39)
    expect(far).toMatchObject({ parent_uid: u.ev, depth: 2, edge_uid: e.evFar, edge_type: 'DerivedFrom', direction: 'outgoing' });
    expect(far.path_cost).toBeCloseTo(-Math.log(0.9) - Math.log(0.85), 10);
    expect(far.path_confidence).toBeCloseTo(0.5, 10);
    const ev = r.body.steps.find((s: any) => s.node_uid === u.ev);
    expect(ev).toEqual({
      node_uid: u.ev,
      label: 'node ev',
      node_type: 'Evidence',
      layer: 'epistemic',
      edge_type: 'Supports',
      edge_uid: e.evClaim,
      direction: 'incoming',
      depth: 1,
      parent_uid: u.claim,
      path_cost: expect.any(Number),
      path_confidence: 0.5,
    });
    const order = r.body.steps.map((s: any) => [s.depth, s.path_cost, s.node_uid]);
    const sorted = [...order].sort((a, b) => a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : 1));
    expect(order).toEqual(sorted);
  });

  it('neighborhood: direction, edge types, exclusions and weight threshold narrow what is followed', async () => {
    const out = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, direction: 'outgoing', max_depth: 1 });
    expect(steps(out).sort()).toEqual([u.premise, u.other, u.far].sort());
    const inc = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, direction: 'incoming', max_depth: 1 });
    expect(steps(inc).sort()).toEqual([u.ev, u.weak].sort());
    const typed = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, edge_types: ['supports', 'HAS_PREMISE'], exclude_edge_types: ['HasPremise'], max_depth: 1 });
    expect(steps(typed).sort()).toEqual([u.ev, u.far].sort());
    const heavy = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, weight_threshold: 0.5, max_depth: 1 });
    expect(steps(heavy).sort()).toEqual([u.ev, u.premise, u.other].sort());
  });

  it('neighborhood: max_nodes caps the answer and sets truncated', async () => {
    const r = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, max_nodes: 2 });
    expect(r.body.truncated).toBe(true);
    expect(r.body.steps).toHaveLength(2);
    // the strongest neighbours are kept
    expect(steps(r).sort()).toEqual([u.ev, u.premise].sort());
  });

  it('chain: start included at depth 0 and only the reasoning edge set by default', async () => {
    const r = await f.w.post('/traverse', { action: 'chain', start_uid: u.claim });
    expect(r.body).toMatchObject({ mode: 'chain', max_depth: 5, truncated: false });
    expect(r.body.steps[0]).toMatchObject({ node_uid: u.claim, depth: 0, parent_uid: null, edge_uid: null, direction: null, path_cost: 0, path_confidence: 1 });
    // RelatedTo is not a reasoning edge: `other` is not reached
    expect(steps(r)).not.toContain(u.other);
    expect(steps(r)).toEqual(expect.arrayContaining([u.ev, u.premise, u.weak, u.far]));
    const g = await f.w.get(`/chain/${u.claim}?max_depth=1&direction=outgoing&edge_types=HasPremise`);
    expect(g.status).toBe(200);
    expect(steps(g)).toEqual([u.claim, u.premise]);
  });

  it('GET /neighborhood takes depth and comma-separated filters', async () => {
    const r = await f.w.get(`/neighborhood/${u.claim}?depth=1&exclude_edge_types=Refutes,Supports&max_nodes=10`);
    expect(r.status).toBe(200);
    expect(r.body.max_depth).toBe(1);
    expect(steps(r).sort()).toEqual([u.premise, u.other].sort());
  });

  it('path: fewest hops first, then lowest cost; steps from start to end', async () => {
    // two 2-hop routes ev → other: through claim (0.9, 0.5) or through far (0.85, 0.5): claim's is cheaper
    const r = await f.w.post('/traverse', { action: 'path', start_uid: u.ev, end_uid: u.other });
    expect(r.body).toMatchObject({ mode: 'path', found: true, hops: 2 });
    expect(steps(r)).toEqual([u.ev, u.claim, u.other]);
    expect(r.body.path_cost).toBeCloseTo(-Math.log(0.9) - Math.log(0.5), 10);
    expect(r.body.path_confidence).toBeCloseTo(0.5, 10);
    // one hop wins even though the two-hop route through ev is cheaper
    const direct = await f.w.get(`/path?from=${u.claim}&to=${u.far}`);
    expect(direct.body).toMatchObject({ found: true, hops: 1 });
    expect(direct.body.steps[1].edge_uid).toBe(e.claimFar);
  });

  it('path: not found gives nulls; start = end gives one step', async () => {
    const none = await f.w.post('/traverse', { action: 'path', start_uid: u.premise, end_uid: u.far, direction: 'outgoing' });
    expect(none.body).toMatchObject({ found: false, hops: null, path_cost: null, path_confidence: null, steps: [] });
    const same = await f.w.get(`/path?from=${u.far}&to=${u.far}`);
    expect(same.body).toMatchObject({ found: true, hops: 0, path_cost: 0 });
    expect(same.body.steps).toHaveLength(1);
    // never through a tombstoned node
    const blocked = await f.w.post('/traverse', { action: 'path', start_uid: u.claim, end_uid: u.beyond });
    expect(blocked.body).toMatchObject({ found: false, steps: [] });
  });

  it('top_k_paths: k cheapest simple paths, cost ascending, with labels', async () => {
    const r = await f.w.post('/traverse', { action: 'top_k_paths', start_uid: u.claim, end_uid: u.far, k: 5, direction: 'outgoing' });
    expect(r.status).toBe(200);
    const paths = r.body.paths;
    expect(paths.map((p: any) => p.node_uids)).toEqual([
      [u.claim, u.other, u.far],
      [u.claim, u.far],
    ]);
    expect(paths[0]).toMatchObject({ hops: 2, edge_types: ['RelatedTo', 'RelatedTo'], labels: ['node claim', 'node other', 'node far'] });
    expect(paths[0].cost).toBeLessThan(paths[1].cost);
    const capped = await f.w.post('/traverse', { action: 'top_k_paths', start_uid: u.claim, end_uid: u.far, k: 5, direction: 'outgoing', max_cost: 1.5 });
    expect(capped.body.paths).toHaveLength(1);
    const oneHop = await f.w.post('/traverse', { action: 'top_k_paths', start_uid: u.claim, end_uid: u.far, direction: 'outgoing', max_hops: 1 });
    expect(oneHop.body.paths.map((p: any) => p.hops)).toEqual([1]);
  });

  it('subgraph via /traverse and POST /subgraph: reached nodes, the live edges among them, node_types', async () => {
    const t = await f.w.post('/traverse', { action: 'subgraph', start_uid: u.premise, max_depth: 1 });
    expect(t.body.mode).toBe('subgraph');
    expect(t.body.nodes.map((n: any) => n.uid).sort()).toEqual([u.premise, u.claim].sort());
    expect(t.body.edges.map((x: any) => x.uid)).toEqual([e.claimPremise]);

    const s = await f.w.post('/subgraph', { start_uids: [u.ev, u.other], max_depth: 1, node_types: ['Evidence'] });
    expect(s.status).toBe(200);
    // start nodes are always kept; other reached nodes only when of a named type
    expect(s.body.nodes.map((n: any) => n.uid).sort()).toEqual([u.ev, u.other].sort());
    expect(s.body.start_uids).toEqual([u.ev, u.other]);
    const all = await f.w.post('/subgraph', { start_uids: [u.claim], max_depth: 1, weight_threshold: 0.6 });
    expect(all.body.edges.every((x: any) => x.weight >= 0.6)).toBe(true);
    expect(all.body.nodes.every((n: any) => n.tombstone_at === null)).toBe(true);
  });

  it('bad input is a 4xx naming the field, never a 500', async () => {
    expectError(await f.w.post('/traverse', { start_uid: u.claim }), 400, 'unknown_action');
    const unknown = await f.w.post('/traverse', { action: 'walk', start_uid: u.claim });
    expectError(unknown, 400, 'unknown_action');
    expect(unknown.body.valid_actions).toEqual(['chain', 'neighborhood', 'path', 'subgraph', 'top_k_paths']);
    expectError(await f.w.post('/traverse', { action: 'neighborhood', uid: u.claim }), 400, 'missing_field', 'start_uid');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: 'bad uid!' }), 400, 'invalid_uid', 'start_uid');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found', 'start_uid');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.dead }), 404, 'not_found', 'start_uid');
    expectError(await f.w.post('/traverse', { action: 'path', start_uid: u.claim }), 400, 'missing_field', 'end_uid');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, direction: 'up' }), 400, 'invalid_field', 'direction');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, max_depth: 0 }), 400, 'invalid_field', 'max_depth');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, max_depth: 'x' }), 400, 'invalid_field', 'max_depth');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, edge_types: 'Supports' + '!' }), 400, 'invalid_field', 'edge_types');
    expectError(await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, weight_threshold: 2 }), 400, 'invalid_field', 'weight_threshold');
    expectError(await f.w.get(`/path?from=${u.claim}`), 400, 'missing_field', 'to');
    expectError(await f.w.get(`/path?from=bad!&to=${u.claim}`), 400, 'invalid_uid', 'from');
    // GET /neighborhood's parameter is depth (REFERENCE §6.2): errors name it, not max_depth
    for (const depth of ['abc', '0', '-1', '1.5']) {
      const r = await f.w.get(`/neighborhood/${u.claim}?depth=${depth}`);
      expectError(r, 400, 'invalid_field', 'depth');
      expect([depth, r.body.error]).toEqual([depth, expect.stringMatching(/^depth /)]);
    }
    expectError(await f.w.get(`/chain/${u.claim}?max_depth=abc`), 400, 'invalid_field', 'max_depth');
    expectError(await f.w.get(`/path?from=${u.claim}&to=${u.claim}&max_depth=0`), 400, 'invalid_field', 'max_depth');
    expectError(await f.w.post('/subgraph', {}), 400, 'missing_field', 'start_uids');
    expectError(await f.w.post('/subgraph', { start_uids: Array.from({ length: 101 }, (_, i) => `n${i}`) }), 400, 'invalid_field', 'start_uids');
    expectError(await f.w.post('/subgraph', { start_uids: [u.claim, u.dead] }), 404, 'not_found', 'start_uids[1]');
  });

  it('clamps max_depth and max_nodes instead of failing', async () => {
    const r = await f.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim, max_depth: 99, max_nodes: 1e6 });
    expect(r.status).toBe(200);
    expect(r.body.max_depth).toBe(16);
  });

  it('read-only keys may traverse; other organizations see nothing of this graph', async () => {
    expect((await f.ro.post('/traverse', { action: 'neighborhood', start_uid: u.claim })).status).toBe(200);
    expect((await f.ro.post('/subgraph', { start_uids: [u.claim] })).status).toBe(200);
    const other = await newOrg(f.app);
    expectError(await other.w.post('/traverse', { action: 'neighborhood', start_uid: u.claim }), 404, 'not_found', 'start_uid');
    expectError(await other.w.get(`/chain/${u.claim}`), 404, 'not_found');
    expectError(await other.w.post('/subgraph', { start_uids: [u.claim] }), 404, 'not_found');
  });
});
