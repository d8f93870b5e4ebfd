import { READ_LAG_HEADER } from '@strata/platform/unit-of-work/read-lag';
import { Api, api, signUpWithKey } from '../support/http';
import { useServersStack } from './support/servers-mode-app';
import { populateSnapshotWorld } from '../support/snapshot-world';
import { eventually } from '@strata/domain/testing/eventually';

/**
 * Retrieval and graph-wide maintenance in servers mode, end to end: text and vectors written
 * by the worker's projections, the API's ServerVectors and ServerMaintenanceStore reading
 * them. Expected answers are those of the embedded default (test/graph/maintenance.e2e.ts,
 * test/retrieval/embeddings.e2e.ts): servers mode must not change what a client sees.
 */

const unit = (n: number, i: number) => Array.from({ length: n }, (_, j) => (j === i ? 1 : 0));

async function ok<T = any>(p: Promise<{ status: number; body: T; text: string; headers: Headers }>, status = 200): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  expect(r.headers.get(READ_LAG_HEADER)).toBeNull();
  return r.body;
}

describe('servers mode: retrieval and maintenance on the worker-written read models', () => {
  // decay tests move the clock by seconds: the worker's lease must outlast that
  const stack = useServersStack({ leaseTtlMs: 10 * 60_000 });
  /** the stack's clock (a FixedClock): decay tests move it instead of waiting */
  const nowSecs = () => stack.servers.clock.now();
  const pass = (secs: number) => stack.servers.clock.advance(secs);
  afterEach(() => expect(stack.worker.problems).toEqual([]));

  async function freshOrg(): Promise<Api> {
    return api(stack.replica.url, (await signUpWithKey(stack.replica.url)).key);
  }
  const node = (c: Api, body: Record<string, unknown>) => ok(c.post('/node', body), 201);
  const link = (c: Api, from: string, to: string, edge_type = 'Supports') => ok(c.post('/edge', { from_uid: from, to_uid: to, edge_type }), 201);
  const exportOf = (c: Api, query = '') => ok(c.get(`/export${query}`));
  const withoutTime = (snapshot: any) => ({ ...snapshot, exported_at: undefined });

  const populate = populateSnapshotWorld;

  it('/search finds what the text projection indexed; tombstoned nodes leave the index', async () => {
    const c = await freshOrg();
    const label = await node(c, { label: 'Quantum entanglement', node_type: 'Concept' });
    const summary = await node(c, { label: 'Physics notes', node_type: 'Concept', summary: 'about quantum effects' });
    const gone = await node(c, { label: 'Quantum gone', node_type: 'Concept' });
    await ok(c.delete(`/node/${gone.uid}`));
    const hits = await ok(c.post('/search', { query: 'quantum' }));
    expect(hits.map((h: any) => h.uid)).toEqual([label.uid, summary.uid]);
    expect(await ok((await freshOrg()).post('/search', { query: 'quantum' }))).toEqual([]); // another organization
  });

  it('/traverse walks the read model through the port (the path MongoDB takes): cheapest paths, tombstones not entered', async () => {
    const c = await freshOrg();
    const u: Record<string, string> = {};
    for (const k of ['ev', 'claim', 'other', 'far', 'dead', 'beyond']) u[k] = (await node(c, { label: `node ${k}`, node_type: k === 'ev' ? 'Evidence' : 'Claim' })).uid;
    const edge = (from: string, to: string, edge_type: string, weight: number) => ok(c.post('/edge', { from_uid: u[from], to_uid: u[to], edge_type, weight }), 201);
    await edge('ev', 'claim', 'Supports', 0.9);
    await edge('claim', 'other', 'RelatedTo', 0.5);
    await edge('other', 'far', 'RelatedTo', 0.5);
    const evFar = await edge('ev', 'far', 'DerivedFrom', 0.85);
    await edge('claim', 'dead', 'RelatedTo', 1);
    await edge('dead', 'beyond', 'RelatedTo', 1);
    await ok(c.post('/evolve', { action: 'tombstone', uid: u.dead }));
    const r = await ok(c.post('/traverse', { action: 'neighborhood', start_uid: u.claim }));
    const steps = r.steps.map((x: any) => x.node_uid);
    expect(steps.sort()).toEqual([u.ev, u.other, u.far].sort());
    expect(r.steps.find((x: any) => x.node_uid === u.far)).toMatchObject({ parent_uid: u.ev, depth: 2, edge_uid: evFar.uid, edge_type: 'DerivedFrom' });
    expect(r.steps.find((x: any) => x.node_uid === u.ev)).toMatchObject({ label: 'node ev', node_type: 'Evidence', direction: 'incoming', depth: 1 });
  });

  it('aliases, /resolve (through the port, as on MongoDB) and an entity merge, written in one go', async () => {
    const c = await freshOrg();
    const mk = async (node_type: string, label: string) => (await node(c, { label, node_type })).uid;
    const tesla = await mk('Person', 'Nikola Tesla');
    const teslaInc = await mk('Organization', 'Tesla Motors');
    expect((await ok(c.post('/alias', { text: 'Tesla Inc.', canonical_uid: teslaInc }), 201)).canonical_uid).toBe(teslaInc);
    // the alias moved the node's stream revision; the read model follows, so the node stays writable
    expect(await ok(c.patch(`/node/${teslaInc}`, { summary: 'car maker', expected_version: 1 }))).toMatchObject({ version: 2 });
    const r = await ok(c.get('/resolve?text=' + encodeURIComponent('  NIKOLA   tesla!! ')));
    expect(r.exact).toEqual({ uid: tesla, label: 'Nikola Tesla', node_type: 'Person', score: 1 });
    expect((await ok(c.get('/resolve?text=tesla%20inc'))).exact).toMatchObject({ uid: teslaInc, score: 1 });

    const keep = await mk('Person', 'Alan Turing');
    const dup = await mk('Person', 'A. M. Turing');
    const paper = await mk('Claim', 'On computable numbers');
    const authored = await ok(c.post('/edge', { from_uid: paper, to_uid: dup, edge_type: 'AuthoredBy' }), 201);
    await ok(c.post('/alias', { text: 'Turing', canonical_uid: dup, score: 0.7 }), 201);
    const m = await ok(c.post('/entities/merge', { keep_uid: keep, merge_uid: dup, reason: 'same person' }));
    expect(m).toMatchObject({ keep_uid: keep, merge_uid: dup, edges_retargeted: 1, alias_added: true });
    expect((await ok(c.get(`/edge/between?from_uid=${paper}&to_uid=${keep}`))).map((e: any) => e.uid)).toEqual([authored.uid]);
    expect((await ok(c.get('/resolve?text=turing'))).exact).toMatchObject({ uid: keep });
    expect((await ok(c.get(`/node/${dup}`))).tombstone_at).not.toBeNull();
  });

  it('semantic /retrieve with the built-in lexical embedder: vectors computed by the stack.worker, best match first', async () => {
    const c = await freshOrg();
    const uids: Record<string, string> = {};
    for (const [k, label] of Object.entries({
      volcano: 'Volcanic eruptions and magma chambers',
      bread: 'Sourdough bread baking',
      engine: 'Car engine repair',
    }))
      uids[k] = (await node(c, { label, node_type: 'Concept' })).uid;
    const g = await ok(c.get(`/node/${uids.volcano}/embedding`));
    expect(g).toMatchObject({ uid: uids.volcano, dimension: 384, model: 'strata-lexical-v1' });
    const r = await ok(c.post('/retrieve', { action: 'semantic', query: 'volcanic eruptions magma', k: 3 }));
    expect(r[0].node.uid).toBe(uids.volcano);
    expect(r[0].score).toBeGreaterThan(0.3);
    expect((await ok(c.post('/retrieve', { action: 'semantic', query: 'repairing the engine of a car', k: 1 })))[0].node.uid).toBe(uids.engine);
    const same = await ok(c.post('/embeddings/search', { vector: g.vector, k: 1 }));
    expect(same[0]).toMatchObject({ node: { uid: uids.volcano } });
    expect(same[0].score).toBeCloseTo(1, 5);
  });

  it('PUT pins a client vector (kept across updates) until DELETE; label changes re-embed otherwise', async () => {
    const c = await freshOrg();
    const n = (await node(c, { label: 'Pinned vector node', node_type: 'Claim' })).uid;
    const v = unit(384, 7);
    expect(await ok(c.put(`/node/${n}/embedding`, { vector: v }))).toEqual({ uid: n, dimension: 384, updated_at: expect.any(Number) });
    expect((await ok(c.get(`/node/${n}/embedding`))).vector).toEqual(v);
    await ok(c.patch(`/node/${n}`, { label: 'Pinned vector node, renamed' }));
    expect((await ok(c.get(`/node/${n}/embedding`))).vector).toEqual(v);
    expect((await ok(c.post('/embeddings/search', { vector: v, k: 1 })))[0]).toMatchObject({ node: { uid: n }, score: 1 });
    expect(await ok(c.delete(`/node/${n}/embedding`))).toEqual({ uid: n, deleted: true });
    expect((await c.get(`/node/${n}/embedding`)).status).toBe(404);
    await ok(c.patch(`/node/${n}`, { label: 'Pinned vector node, renamed again' }));
    const auto = await ok(c.get(`/node/${n}/embedding`));
    expect(auto.vector).not.toEqual(v);
    expect(auto.vector).toHaveLength(384);
  });

  it('a forced change of dimensions and metric: the worker re-embeds every live node before the answer', async () => {
    const c = await freshOrg();
    const n = (await node(c, { label: 'Re-embedded node', node_type: 'Claim' })).uid;
    await node(c, { label: 'Another node', node_type: 'Claim' });
    const conflict = await c.post('/embeddings/configure', { dimensions: 64 });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'embedding_config_conflict']);
    expect((await ok(c.get(`/node/${n}/embedding`))).dimension).toBe(384);
    const forced = await ok(c.post('/embeddings/configure', { dimension: 64, metric: 'dot', force: true }));
    expect(forced).toMatchObject({ dimensions: 64, distance_metric: 'dot' });
    expect(await ok(c.get(`/node/${n}/embedding`))).toMatchObject({ dimension: 64 });
    expect(await ok(c.get('/stats'))).toMatchObject({ embedding_dimension: 64, embedding_count: 2 });
    expect((await ok(c.post('/embeddings/search-text', { text: 're-embedded node', k: 1 })))[0].node.uid).toBe(n);
  });

  it('embed-all embeds live nodes without a vector', async () => {
    const c = await freshOrg();
    const n = (await node(c, { label: 'Needs a vector again', node_type: 'Claim' })).uid;
    await ok(c.delete(`/node/${n}/embedding`));
    expect((await c.get(`/node/${n}/embedding`)).status).toBe(404);
    const r = await ok(c.post('/ingest/embed-all', undefined), 202);
    expect(r).toEqual({ job_id: expect.any(String), nodes_pending: 1 });
    const job = await eventually(async () => {
      const j = await ok(c.get(`/jobs/${r.job_id}`));
      return j.status === 'completed' && j;
    }, { what: 'the embed-all job to complete', timeoutMs: 2500, everyMs: 25 });
    expect(job).toMatchObject({ status: 'completed', kind: 'embed_all', progress: { total_nodes: 1, embedded_nodes: 1 } });
    expect(await ok(c.get(`/node/${n}/embedding`))).toMatchObject({ uid: n, dimension: 384 });
  });

  it('export → import into another organization gives the same graph', async () => {
    const source = await freshOrg();
    const g = await populate(source);
    const snap = await exportOf(source, '?include_tombstoned=true');
    expect(snap.nodes).toHaveLength(6);
    const target = await freshOrg();
    expect(await ok(target.post('/import', snap))).toEqual({
      nodes_imported: 6,
      nodes_skipped: 0,
      edges_imported: 3,
      edges_skipped: 0,
      aliases_imported: 1,
      embeddings_imported: 1,
      embeddings_skipped: 0,
      series_points_imported: 2,
    });
    expect(withoutTime(await exportOf(target, '?include_tombstoned=true'))).toEqual(withoutTime(snap));
    expect(withoutTime(await exportOf(target))).toEqual(withoutTime(await exportOf(source)));
    expect(await ok(target.get(`/node/${g.claim.uid}`))).toEqual(await ok(source.get(`/node/${g.claim.uid}`)));
    expect((await ok(target.get(`/node/${g.evidence.uid}/embedding`))).vector).toEqual([0.5, 0.25, 0.125, 1]);
    expect(await ok(target.get('/stats'))).toMatchObject({ total_nodes: 6, total_edges: 3, total_versions: 9, embedding_dimension: 4, embedding_count: 5 });
    // importing it again changes nothing
    expect(await ok(target.post('/import', snap))).toMatchObject({ nodes_imported: 0, nodes_skipped: 6, edges_imported: 0, edges_skipped: 3 });
  });

  it('decay lowers salience by the half-life without a new version', async () => {
    const c = await freshOrg();
    const n = await node(c, { label: 'fading', node_type: 'Claim', props: { content: 'x' }, salience: 0.8 });
    pass(1);
    const t0 = nowSecs();
    expect(await ok(c.post('/decay', { half_life_secs: 2 }))).toEqual({ nodes_decayed: 1, below_threshold: 0, auto_tombstoned: null, dry_run: false });
    const after = await ok(c.get(`/node/${n.uid}`));
    expect(after.salience).toBeLessThanOrEqual(0.8 * Math.pow(0.5, (t0 - n.updated_at) / 2) + 1e-9);
    expect(after.salience).toBeLessThan(0.8 * Math.pow(0.5, 0.9 / 2));
    expect(after).toMatchObject({ version: 1, updated_at: n.updated_at });
    expect(await ok(c.get(`/node/${n.uid}/history`))).toHaveLength(1);
  });

  it('export → import keeps the decay clock, so the next decay is the same on both sides (audit J3)', async () => {
    const source = await freshOrg();
    const n = await node(source, { label: 'decay round trip', node_type: 'Claim', props: { content: 'x' }, salience: 0.8 });
    pass(1.2);
    await ok(source.post('/decay', { half_life_secs: 1 }));
    const snap = await exportOf(source);
    const clock = snap.nodes[0].last_decayed_at;
    expect(clock).toBeGreaterThan(n.updated_at + 1);
    const target = await freshOrg();
    expect(await ok(target.post('/import', snap))).toMatchObject({ nodes_imported: 1 });
    expect(withoutTime(await exportOf(target))).toEqual(withoutTime(snap));
    pass(0.3);
    const decayed = async (c: Api) => {
      const t0 = nowSecs();
      await ok(c.post('/decay', { half_life_secs: 1 }));
      const t1 = nowSecs();
      const s = (await ok(c.get(`/node/${n.uid}`))).salience;
      // decayed since the clock only, not again since updated_at
      expect(s).toBeGreaterThanOrEqual(snap.nodes[0].salience * Math.pow(0.5, t1 - clock + 1e-3) - 1e-9);
      expect(s).toBeLessThanOrEqual(snap.nodes[0].salience * Math.pow(0.5, t0 - clock - 1e-3) + 1e-9);
    };
    await decayed(source);
    await decayed(target);
  });

  it('purge removes tombstoned data for good, vectors included', async () => {
    const c = await freshOrg();
    await ok(c.post('/embeddings/configure', { provider: 'builtin', dimensions: 3 }));
    const x = await node(c, { label: 'Xavier', node_type: 'Person', props: { full_name: 'Xavier' } });
    const y = await node(c, { label: 'Yara', node_type: 'Person', props: { full_name: 'Yara' } });
    const z = await node(c, { label: 'Zed', node_type: 'Person', props: { full_name: 'Zed' } });
    const xy = await link(c, x.uid, y.uid, 'RelatedTo');
    const yz = await link(c, y.uid, z.uid, 'RelatedTo');
    await ok(c.post('/alias', { text: 'X', canonical_uid: x.uid }), 201);
    await ok(c.put(`/node/${x.uid}/embedding`, { vector: [1, 0, 0] }));
    const s = await ok(c.post('/reality/series', { action: 'create', label: 'mood', points: [1, 2, 3].map((ts) => ({ ts, value: ts })) }), 201);
    await ok(c.delete(`/node/${x.uid}`)); // cascades x→y
    await ok(c.delete(`/edge/${yz.uid}`));
    await ok(c.delete(`/node/${s.uid}`));
    expect(await ok(c.post('/purge', {}))).toEqual({ nodes_purged: 2, edges_purged: 2, versions_purged: 8, aliases_purged: 1, embeddings_purged: 1, points_purged: 3, cutoff: null });
    for (const p of [`/node/${x.uid}`, `/node/${x.uid}/history`, `/edge/${xy.uid}/history`, `/edge/${yz.uid}/history`]) expect([p, (await c.get(p)).status]).toEqual([p, 404]);
    expect(await ok(c.get('/stats'))).toMatchObject({ total_nodes: 2, tombstoned_nodes: 0, total_edges: 0, total_aliases: 0, embedding_count: 2, series_point_count: 0 });
    expect((await ok(c.post('/embeddings/search', { vector: [1, 0, 0], k: 5 }))).map((h: any) => h.node.uid)).not.toContain(x.uid);
  });

  it('clear deletes the whole graph, keeps the embedding configuration and leaves other organizations alone', async () => {
    const c = await freshOrg();
    const other = await freshOrg();
    const g = await populate(c);
    const otherNode = await node(other, { label: 'elsewhere', node_type: 'Goal' });
    // the client's vector and the built-in embedder's: every vector /stats counts
    const vectors = (await ok(c.get('/stats'))).embedding_count;
    expect(vectors).toBe(5);
    expect(await ok(c.post('/clear'))).toEqual({
      cleared: true,
      nodes_removed: 6,
      edges_removed: 3,
      versions_removed: 12,
      aliases_removed: 1,
      embeddings_removed: vectors,
      series_points_removed: 2,
      jobs_cancelled: 0,
    });
    expect(await ok(c.get('/stats'))).toMatchObject({ total_nodes: 0, total_edges: 0, total_versions: 0, total_aliases: 0, embedding_count: 0, series_point_count: 0, embedding_dimension: 4 });
    expect((await c.get(`/node/${g.claim.uid}`)).status).toBe(404);
    expect(await ok(c.post('/search', { query: 'kettle' }))).toEqual([]);
    expect(await ok(other.get(`/node/${otherNode.uid}`))).toMatchObject({ label: 'elsewhere' });
    // the organization is usable afterwards, its streams starting again
    const again = await node(c, { label: 'Kettle test', node_type: 'Evidence', props: { description: 'again' } });
    expect((await ok(c.post('/search', { query: 'kettle' }))).map((h: any) => h.uid)).toEqual([again.uid]);
    expect(await ok(c.get('/stats'))).toMatchObject({ total_nodes: 1, total_versions: 1, embedding_count: 1 });
  });
});
