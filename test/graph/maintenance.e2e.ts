import * as fs from 'node:fs';
import * as path from 'node:path';
import { Api, api, createApiKey, request, signUp, signUpWithKey } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { TickingClock } from '../support/ticking-clock';
import { populateSnapshotWorld } from '../support/snapshot-world';

/** GET /stats, GET /export, POST /import, /decay, /purge, /clear (REFERENCE §7.2, §7.3, §8.1, §8.6, §8.9). */

/** the service's clock: later at every reading, as a real one; tests move it instead of waiting */
const time = new TickingClock();
const nowSecs = () => time.now();

async function ok<T = any>(p: Promise<{ status: number; body: T; text: string }>, status = 200): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r.body;
}

describe('graph maintenance routes', () => {
  let app: TestApp;

  /** A fresh organization with a read+write key: counts in one test never see another's data. */
  async function freshOrg(): Promise<{ c: Api; owner: string }> {
    const s = await signUpWithKey(app.url);
    return { c: api(app.url, s.key), owner: s.access_token };
  }
  const node = (c: Api, body: Record<string, unknown>) => ok(c.post('/node', body), 201);
  const link = (c: Api, from: string, to: string, edge_type = 'Supports') => ok(c.post('/edge', { from_uid: from, to_uid: to, edge_type }), 201);
  const exportOf = async (c: Api, query = '') => {
    const r = await c.get(`/export${query}`);
    expect(r.status).toBe(200);
    return r.body;
  };
  const withoutTime = (snapshot: any) => ({ ...snapshot, exported_at: undefined });

  const populate = populateSnapshotWorld;

  beforeAll(async () => {
    app = await startTestApp({ clock: time });
  });
  afterAll(() => app.close());

  describe('GET /stats', () => {
    it('counts nodes and edges by state, type and layer, plus versions, aliases, vectors and points', async () => {
      const { c } = await freshOrg();
      await populate(c);
      const s = await ok(c.get('/stats'));
      expect(s).toMatchObject({
        total_nodes: 6,
        live_nodes: 5,
        tombstoned_nodes: 1,
        total_edges: 3,
        live_edges: 2,
        tombstoned_edges: 1,
        nodes_by_type: { Claim: 1, Evidence: 1, Person: 1, ResearchTopic: 1, Series: 1 },
        nodes_by_layer: { epistemic: 2, reality: 2, intent: 1 },
        edges_by_type: { Supports: 1, Endorses: 1 },
        // 6 creates + 1 update + 1 tombstone; 3 edge creates + 1 cascade tombstone
        total_versions: 12,
        total_aliases: 1,
        // every live node has a vector: four from the built-in embedder, one PUT explicitly
        embedding_count: 5,
        embedding_index_backlog: expect.any(Number),
        embedding_dimension: 4,
        embedding_model: expect.any(String),
        series_point_count: 2,
      });
      expect(s.generated_at).toBeGreaterThan(nowSecs() - 60);
    });

    it('is all zeros for an empty organization, and names the default embedder in force', async () => {
      const { c } = await freshOrg();
      expect(await ok(c.get('/stats'))).toMatchObject({
        total_nodes: 0,
        live_nodes: 0,
        total_edges: 0,
        nodes_by_type: {},
        total_versions: 0,
        embedding_count: 0,
        // REFERENCE §8.7: a deployment with a default embedder is configured from the start
        embedding_dimension: 384,
        embedding_model: 'strata-lexical-v1',
        series_point_count: 0,
      });
    });
  });

  describe('who may call them', () => {
    it('refuses Space- or Project-scoped credentials on every graph-wide route with 403 scope_denied', async () => {
      const s = await signUp(app.url);
      const space = (await api(app.url, s.access_token).post('/node', { label: 'Scoped', node_type: 'Space' })).body.uid;
      const scoped = await createApiKey(app.url, s.access_token, { space_uids: [space] });
      const projectScoped = await createApiKey(app.url, s.access_token, { project_uids: ['project-1'] });
      for (const key of [scoped.key, projectScoped.key]) {
        const c = api(app.url, key);
        for (const r of [
          await c.get('/stats'),
          await c.get('/export'),
          await c.post('/import', { format_version: 1 }),
          await c.post('/decay', {}),
          await c.post('/purge', {}),
          await c.post('/clear', {}),
        ]) {
          expect(r.status).toBe(403);
          expect(r.body).toEqual({ error: 'not available to Space- or Project-scoped credentials', code: 'scope_denied' });
        }
      }
    });

    it('lets a read-only key read stats and export but not import, decay, purge or clear', async () => {
      const s = await signUp(app.url);
      const ro = api(app.url, (await createApiKey(app.url, s.access_token, { scopes: ['read'] })).key);
      expect((await ro.get('/stats')).status).toBe(200);
      expect((await ro.get('/export')).status).toBe(200);
      for (const r of [await ro.post('/import', { format_version: 1 }), await ro.post('/decay', {}), await ro.post('/purge', {}), await ro.post('/clear', {})])
        expect(r.body).toMatchObject({ code: 'read_only_credential' });
    });

    it('works with a user JWT too', async () => {
      const s = await signUp(app.url);
      expect((await api(app.url, s.access_token).get('/stats')).status).toBe(200);
    });

    it('needs a credential', async () => {
      expect((await request(app.url, 'GET', '/stats')).status).toBe(401);
      expect((await request(app.url, 'POST', '/clear', { body: {} })).status).toBe(401);
    });
  });

  describe('GET /export', () => {
    it('writes a strata.graph v1 snapshot whose records equal what the node and edge routes return', async () => {
      const { c } = await freshOrg();
      const g = await populate(c);
      const snap = await exportOf(c);
      expect(snap).toMatchObject({ format: 'strata.graph', format_version: 1, counts: { nodes: 5, edges: 2, aliases: 1, embeddings: 1, series_points: 2 } });
      expect(snap.exported_at).toBeGreaterThan(nowSecs() - 60);
      // live data only by default: the tombstoned node and its cascaded edge are left out
      expect(snap.nodes.map((n: any) => n.uid).sort()).toEqual([g.claim.uid, g.evidence.uid, g.person.uid, g.custom.uid, g.series.uid].sort());
      expect(snap.nodes.find((n: any) => n.uid === g.claim.uid)).toEqual((await c.get(`/node/${g.claim.uid}`)).body);
      expect(snap.edges.find((e: any) => e.uid === g.supports.uid)).toEqual(g.supports);
      expect(snap.aliases).toEqual([{ text: 'Countess of Lovelace', canonical_uid: g.person.uid, score: 0.9, created_at: expect.any(Number) }]);
      expect(snap.embeddings).toMatchObject({ dimension: 4, metric: 'cosine', model: expect.any(String), items: [{ uid: g.evidence.uid, vector: [0.5, 0.25, 0.125, 1] }] });
      expect(snap.series_points).toEqual([
        { series_uid: g.series.uid, ts: 10, value: 20, source_uid: null, note: null, recorded_at: expect.any(Number) },
        { series_uid: g.series.uid, ts: 20, value: 60, source_uid: null, note: 'warming', recorded_at: expect.any(Number) },
      ]);
      expect(snap).not.toHaveProperty('versions');
    });

    it('includes tombstoned objects on request and leaves vectors out on request', async () => {
      const { c } = await freshOrg();
      const g = await populate(c);
      const all = await exportOf(c, '?include_tombstoned=true&include_embeddings=false');
      expect(all.counts).toEqual({ nodes: 6, edges: 3, aliases: 1, embeddings: 0, series_points: 2 });
      expect(all.nodes.find((n: any) => n.uid === g.gone.uid)).toMatchObject({ tombstone_at: expect.any(Number) });
      expect(all.embeddings).toBeNull();
      expect((await exportOf(c, '?include_tombstoned=1')).counts.nodes).toBe(6);
    });

    it('leaves out live edges whose other end is tombstoned, so the snapshot always imports cleanly', async () => {
      const { c } = await freshOrg();
      const a = await node(c, { label: 'a', node_type: 'Goal' });
      const b = await node(c, { label: 'b', node_type: 'Goal' });
      await link(c, a.uid, b.uid, 'DependsOn');
      await ok(c.post('/evolve', { action: 'tombstone', uid: b.uid, cascade: false }));
      const snap = await exportOf(c);
      expect(snap.nodes.map((n: any) => n.uid)).toEqual([a.uid]);
      expect(snap.edges).toEqual([]);
    });

    it('rejects a boolean it cannot read with 400 invalid_field', async () => {
      const { c } = await freshOrg();
      const r = await c.get('/export?include_tombstoned=maybe');
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_field', field: 'include_tombstoned' });
    });
  });

  describe('POST /import', () => {
    it('an imported node keeps its version, and its history pages and snapshots find it', async () => {
      const { c: source } = await freshOrg();
      const n = await node(source, { label: 'Versioned', node_type: 'Claim' });
      for (let i = 0; i < 6; i++) await ok(source.patch(`/node/${n.uid}`, { confidence: 0.1 * (i + 1) }));
      const { c: target } = await freshOrg();
      await ok(target.post('/import', await exportOf(source)));
      await ok(target.patch(`/node/${n.uid}`, { confidence: 0.9 }));
      // the imported record is version 7 at revision 0 of its stream: versions and revisions differ
      expect((await target.get(`/node/${n.uid}/history`)).body.map((v: any) => v.version)).toEqual([7, 8]);
      expect((await target.get(`/node/${n.uid}/history/7`)).body).toMatchObject({ version: 7, label: 'Versioned' });
      expect((await target.get(`/node/${n.uid}/history?from_version=8`)).body.map((v: any) => v.version)).toEqual([8]);
      expect((await target.post('/evolve', { action: 'snapshot', uid: n.uid, version: 8 })).body).toMatchObject({ version: 8, confidence: 0.9 });
    });

    it('keeps custom type names as stored, although the naming rule applied twice would change them', async () => {
      const { c: source } = await freshOrg();
      // §3.2 makes 'a b  c' ABC, and would make ABC Abc
      const a = await node(source, { label: 'a', node_type: 'x y' });
      const b = await node(source, { label: 'b', node_type: 'x y' });
      expect(a.node_type).toBe('XY');
      const e = await link(source, a.uid, b.uid, 'a b  c');
      expect(e.edge_type).toBe('ABC');
      const snap = await exportOf(source);
      const { c: target } = await freshOrg();
      await ok(target.post('/import', snap));
      expect((await target.get(`/node/${a.uid}`)).body).toMatchObject({ node_type: 'XY', props: { _type: 'XY' } });
      expect((await target.get(`/edges?from_uid=${a.uid}`)).body).toEqual([expect.objectContaining({ uid: e.uid, edge_type: 'ABC', props: { _type: 'ABC' } })]);
      expect(withoutTime(await exportOf(target))).toEqual(withoutTime(snap));
      // a hand-written snapshot still gets canonical names, and built-ins their own spelling
      const { c: other } = await freshOrg();
      const hand = { ...snap, nodes: snap.nodes.map((n: any) => ({ ...n, node_type: 'x_y', props: { ...n.props, _type: 'x_y' } })), edges: snap.edges.map((x: any) => ({ ...x, edge_type: 'SUPPORTS', props: { _type: 'SUPPORTS' } })) };
      await ok(other.post('/import', hand));
      expect((await other.get(`/node/${a.uid}`)).body.node_type).toBe('XY');
      expect((await other.get(`/edges?from_uid=${a.uid}`)).body.map((x: any) => x.edge_type)).toEqual(['Supports']);
    });

    it('export → import into a fresh organization gives the same graph, one "import" version per object', async () => {
      const { c: source } = await freshOrg();
      const g = await populate(source);
      const snap = await exportOf(source, '?include_tombstoned=true');
      const { c: target } = await freshOrg();
      const r = await target.post('/import', snap);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
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

      // uids, timestamps, version and tombstone state are kept; history holds one create "import"
      const claim = (await target.get(`/node/${g.claim.uid}`)).body;
      expect(claim).toEqual((await source.get(`/node/${g.claim.uid}`)).body);
      expect(claim.version).toBe(2);
      const history = (await target.get(`/node/${g.claim.uid}/history`)).body;
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ version: 2, change_type: 'create', change_reason: 'import', snapshot: claim });
      const edgeHistory = (await target.get(`/edge/${g.supports.uid}/history`)).body;
      expect(edgeHistory).toEqual([expect.objectContaining({ change_type: 'create', change_reason: 'import' })]);
      const gone = (await target.get(`/node/${g.gone.uid}`)).body;
      expect(gone).toMatchObject({ tombstone_at: expect.any(Number), tombstone_by: expect.any(String) });
      // the graph works as usual afterwards: the imported alias resolves, the vector is served
      expect((await target.get(`/aliases/${g.person.uid}`)).body).toEqual([expect.objectContaining({ text: 'Countess of Lovelace', score: 0.9 })]);
      expect((await target.get(`/node/${g.evidence.uid}/embedding`)).body).toMatchObject({ vector: [0.5, 0.25, 0.125, 1], dimension: 4 });
      expect(await ok(target.get('/stats'))).toMatchObject({ total_nodes: 6, total_edges: 3, total_versions: 9, embedding_dimension: 4 });
    });

    it('is idempotent: importing the same snapshot again skips everything and writes nothing', async () => {
      const { c: source } = await freshOrg();
      const g = await populate(source);
      const snap = await exportOf(source, '?include_tombstoned=true');
      const { c: target } = await freshOrg();
      await ok(target.post('/import', snap));
      const statsBefore = await ok(target.get('/stats'));
      const again = await ok(target.post('/import', snap));
      expect(again).toEqual({
        nodes_imported: 0,
        nodes_skipped: 6,
        edges_imported: 0,
        edges_skipped: 3,
        aliases_imported: 0,
        embeddings_imported: 0,
        embeddings_skipped: 1,
        series_points_imported: 0,
      });
      expect({ ...(await ok(target.get('/stats'))), generated_at: 0, embedding_index_backlog: 0 }).toEqual({ ...statsBefore, generated_at: 0, embedding_index_backlog: 0 });
      expect((await target.get(`/node/${g.claim.uid}/history`)).body).toHaveLength(1);
    });

    it('is additive: existing objects are kept as they are, new ones join them', async () => {
      const { c } = await freshOrg();
      const a = await node(c, { label: 'original', node_type: 'Goal' });
      const snap = await exportOf(c);
      await ok(c.patch(`/node/${a.uid}`, { label: 'changed locally' }));
      const b = { ...snap.nodes[0], uid: 'imported-goal-1', label: 'from the snapshot' };
      const r = await ok(
        c.post('/import', {
          ...snap,
          nodes: [{ ...snap.nodes[0], label: 'snapshot label' }, b],
          edges: [{ uid: 'imported-edge-1', from_uid: 'imported-goal-1', to_uid: a.uid, edge_type: 'DependsOn', weight: 0.3, created_at: 5, updated_at: 5 }],
        }),
      );
      expect(r).toMatchObject({ nodes_imported: 1, nodes_skipped: 1, edges_imported: 1 });
      expect((await c.get(`/node/${a.uid}`)).body).toMatchObject({ label: 'changed locally', version: 2 });
      expect((await c.get('/node/imported-goal-1')).body).toMatchObject({ label: 'from the snapshot', version: 1 });
      // the edge's layer is its from-node's when the snapshot does not say
      expect((await c.get('/edges?from_uid=imported-goal-1')).body).toEqual([
        expect.objectContaining({ uid: 'imported-edge-1', to_uid: a.uid, weight: 0.3, layer: 'intent', created_at: 5, version: 1 }),
      ]);
    });

    it('keeps the decay clock: the first decay after an import decays as in the source, not again from updated_at (audit J3)', async () => {
      const { c: source } = await freshOrg();
      const half = 1;
      const n = await node(source, { label: 'decay round trip', node_type: 'Claim', props: { content: 'x' }, salience: 0.8 });
      time.advance(1.5);
      const d0 = nowSecs();
      await ok(source.post('/decay', { half_life_secs: half }));
      const d1 = nowSecs();
      const fresh = await node(source, { label: 'never decayed', node_type: 'Goal', salience: 0.8 });

      const snap = await exportOf(source);
      const decayed = snap.nodes.find((x: any) => x.uid === n.uid);
      // the record as GET /node returns it, plus the clock; a node never decayed has none
      const { last_decayed_at: clock, ...record } = decayed;
      expect(record).toEqual((await source.get(`/node/${n.uid}`)).body);
      expect(clock).toBeGreaterThanOrEqual(d0 - 1e-3);
      expect(clock).toBeLessThanOrEqual(d1 + 1e-3);
      expect(record.updated_at).toBe(n.updated_at);
      expect(snap.nodes.find((x: any) => x.uid === fresh.uid)).not.toHaveProperty('last_decayed_at');

      const { c: target } = await freshOrg();
      expect(await ok(target.post('/import', snap))).toMatchObject({ nodes_imported: 2 });
      const imported = (await target.get(`/node/${n.uid}`)).body;
      expect(imported).toEqual(record);
      expect(imported).not.toHaveProperty('last_decayed_at');
      // the imported organization exports the same clock again
      expect(withoutTime(await exportOf(target))).toEqual(withoutTime(snap));

      // decay both with the same parameters: each decays only since the clock
      time.advance(0.5);
      const decayBoth = async (c: Api) => {
        const t0 = nowSecs();
        await ok(c.post('/decay', { half_life_secs: half }));
        const t1 = nowSecs();
        return { t0, t1, salience: (await c.get(`/node/${n.uid}`)).body.salience as number };
      };
      const a = await decayBoth(source);
      const z = await decayBoth(target);
      for (const side of [a, z]) {
        expect(side.salience).toBeGreaterThanOrEqual(record.salience * Math.pow(0.5, (side.t1 - clock + 1e-3) / half) - 1e-9);
        expect(side.salience).toBeLessThanOrEqual(record.salience * Math.pow(0.5, (side.t0 - clock - 1e-3) / half) + 1e-9);
      }
      // equal but for the moment each decay ran: log2(sa / sz) · half is the time between them
      const between = Math.log2(a.salience / z.salience) * half;
      expect(between).toBeGreaterThanOrEqual(z.t0 - a.t1 - 1e-3);
      expect(between).toBeLessThanOrEqual(z.t1 - a.t0 + 1e-3);
      expect((await target.get(`/node/${fresh.uid}`)).body.salience).toBeLessThan(0.8);
    });

    it('keeps a Skill status, which a client create would reset to candidate', async () => {
      const { c } = await freshOrg();
      const skill = {
        uid: 'skill-1',
        label: 'Brew tea',
        node_type: 'Skill',
        props: { name: 'brew', description: 'steep 3 minutes', status: 'approved', approved_by: 'u-1', approved_at: 1_700_000_000 },
      };
      await ok(c.post('/import', { format: 'strata.graph', format_version: 1, nodes: [skill] }));
      expect((await c.get('/node/skill-1')).body.props).toMatchObject({ status: 'approved', approved_by: 'u-1' });
    });

    it('adopts the snapshot embedding configuration when the organization has none, and skips vectors when it has another', async () => {
      const { c: source } = await freshOrg();
      await populate(source);
      const snap = await exportOf(source);

      const { c: fresh } = await freshOrg();
      expect(await ok(fresh.get('/stats'))).toMatchObject({ embedding_dimension: 384, embedding_model: 'strata-lexical-v1' });
      expect(await ok(fresh.post('/import', snap))).toMatchObject({ embeddings_imported: 1, embeddings_skipped: 0 });
      expect(await ok(fresh.get('/stats'))).toMatchObject({ embedding_dimension: 4, embedding_model: snap.embeddings.model });

      const { c: other } = await freshOrg();
      await ok(other.post('/embeddings/configure', { provider: 'builtin', dimensions: 8 }));
      expect(await ok(other.post('/import', snap))).toMatchObject({ nodes_imported: 5, embeddings_imported: 0, embeddings_skipped: 1 });
      // the snapshot's vector was skipped; the built-in embedder vectors every imported live node
      expect(await ok(other.get('/stats'))).toMatchObject({ embedding_dimension: 8, embedding_count: 5 });
    });

    it('carries the client vectors of an organization that never configured embeddings, under the server default, both ways', async () => {
      const { c: source } = await freshOrg();
      const pinned = await node(source, { label: 'Client vector node', node_type: 'Claim' });
      const derived = await node(source, { label: 'Lexical vector node', node_type: 'Claim' });
      const v = Array.from({ length: 384 }, (_, i) => (i % 7) / 8 - 0.25);
      await ok(source.put(`/node/${pinned.uid}/embedding`, { vector: v }));
      expect((await source.get(`/node/${pinned.uid}/embedding`)).body).toMatchObject({ dimension: 384, model: 'strata-lexical-v1' });

      const snap = await exportOf(source);
      expect(snap.counts.embeddings).toBe(1);
      // the client's vector is carried; the built-in embedder's are derived from each node's text,
      // so they are recomputed where the snapshot is imported rather than carried
      expect(snap.embeddings).toEqual({ provider: 'builtin', model: 'strata-lexical-v1', dimension: 384, metric: 'cosine', items: [{ uid: pinned.uid, vector: v }] });
      expect((await exportOf(source, '?include_embeddings=false')).embeddings).toBeNull();

      const { c: target } = await freshOrg();
      expect(await ok(target.post('/import', snap))).toMatchObject({ nodes_imported: 2, embeddings_imported: 1, embeddings_skipped: 0 });
      expect((await target.get(`/node/${pinned.uid}/embedding`)).body).toMatchObject({ vector: v, dimension: 384, model: 'strata-lexical-v1' });
      expect((await target.get(`/node/${derived.uid}/embedding`)).body).toEqual((await source.get(`/node/${derived.uid}/embedding`)).body);
      expect(withoutTime(await exportOf(target))).toEqual(withoutTime(snap));
      // still the client's vector there: a text change does not replace it
      await ok(target.patch(`/node/${pinned.uid}`, { label: 'Client vector node, renamed' }));
      expect((await target.get(`/node/${pinned.uid}/embedding`)).body.vector).toEqual(v);
    });

    it('merges series points into an existing series and updates its cached counts', async () => {
      const { c } = await freshOrg();
      const s = await ok(c.post('/reality/series', { action: 'create', label: 'rainfall', points: [{ ts: 1, value: 5 }] }), 201);
      const r = await ok(
        c.post('/import', {
          format_version: 1,
          series_points: [
            { series_uid: s.uid, ts: 1, value: 99 },
            { series_uid: s.uid, ts: 7, value: 8, recorded_at: 3 },
          ],
        }),
      );
      expect(r.series_points_imported).toBe(1);
      expect((await c.get(`/node/${s.uid}`)).body.props).toMatchObject({ point_count: 2, first_ts: 1, last_ts: 7, latest_value: 8, latest_ts: 7 });
      expect((await ok(c.post('/reality/series', { action: 'window', series_uid: s.uid }))).items.map((p: any) => [p.ts, p.value])).toEqual([
        [1, 5],
        [7, 8],
      ]);
    });

    describe('validates everything first and writes nothing on any error', () => {
      let c: Api;
      let snap: any;
      let statsBefore: any;
      beforeAll(async () => {
        const src = await freshOrg();
        await populate(src.c);
        snap = await exportOf(src.c, '?include_tombstoned=true');
        c = (await freshOrg()).c;
        await node(c, { label: 'already here', node_type: 'Goal' });
        statsBefore = { ...(await ok(c.get('/stats'))), generated_at: 0, embedding_index_backlog: 0 };
      });
      afterEach(async () => {
        // the ANN backlog drains in the background: not part of what an import may change
        expect({ ...(await ok(c.get('/stats'))), generated_at: 0, embedding_index_backlog: 0 }).toEqual(statsBefore);
      });
      const withItem = (section: string, i: number, patch: Record<string, unknown>) => ({
        ...snap,
        [section]: snap[section].map((x: any, j: number) => (j === i ? { ...x, ...patch } : x)),
      });

      it.each([
        [{ format_version: 2 }, 'format_version'],
        [{ format_version: undefined }, 'format_version'],
        [{ format: 'neo4j' }, 'format'],
      ])('refuses an unsupported snapshot %j with 400 invalid_snapshot', async (over, field) => {
        const r = await c.post('/import', { ...snap, ...over });
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_snapshot', field });
      });

      it('refuses an edge to a node in neither the snapshot nor the graph, naming the item', async () => {
        const r = await c.post('/import', withItem('edges', 1, { to_uid: 'nowhere' }));
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: 'invalid_snapshot', index: 'edges[1]', field: 'edges[1].to_uid', uid: 'nowhere' });
      });

      it('refuses an alias of a node that does not exist', async () => {
        const r = await c.post('/import', withItem('aliases', 0, { canonical_uid: 'nobody' }));
        expect(r.body).toMatchObject({ code: 'invalid_snapshot', index: 'aliases[0]', uid: 'nobody' });
      });

      it('validates props per type: unknown fields → 422 with the item, wrong types → 400', async () => {
        const i = snap.nodes.findIndex((n: any) => n.node_type === 'Claim');
        const unknown = await c.post('/import', withItem('nodes', i, { props: { ...snap.nodes[i].props, colour: 'blue' } }));
        expect(unknown.status).toBe(422);
        expect(unknown.body).toMatchObject({ code: 'unknown_props_fields', index: `nodes[${i}]`, unknown_fields: ['colour'] });
        const wrong = await c.post('/import', withItem('nodes', i, { props: { ...snap.nodes[i].props, certainty_degree: 'high' } }));
        expect(wrong.status).toBe(400);
        expect(wrong.body).toMatchObject({ code: 'invalid_props', index: `nodes[${i}]` });
      });

      it.each([
        ['nodes', { uid: 'not a uid' }, 'invalid_uid'],
        ['nodes', { label: null }, 'missing_field'],
        ['nodes', { salience: 7 }, 'invalid_field'],
        ['edges', { weight: 'heavy' }, 'invalid_field'],
        ['edges', { edge_type: 5 }, 'invalid_field'],
      ])('refuses %s item with %j (%s), naming it', async (section, patch, code) => {
        const r = await c.post('/import', withItem(section, 0, patch));
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code, index: `${section}[0]` });
      });

      it('refuses a vector of the wrong length with 400 dimension_mismatch', async () => {
        const r = await c.post('/import', { ...snap, embeddings: { ...snap.embeddings, items: [{ uid: snap.embeddings.items[0].uid, vector: [1, 2] }] } });
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ code: 'dimension_mismatch', index: 'embeddings.items[0]' });
      });

      it('refuses malformed JSON, a non-object root, a non-JSON body and wrongly typed sections', async () => {
        expect((await c.post('/import', undefined, { raw: '{"format_version": 1, "nodes": [' })).body).toMatchObject({ code: 'invalid_json' });
        expect((await c.post('/import', undefined, { raw: '[1,2]' })).body).toMatchObject({ code: 'invalid_json' });
        const text = await c.post('/import', undefined, { raw: 'format_version=1', contentType: 'text/plain' });
        expect(text.status).toBe(415);
        expect((await c.post('/import', { ...snap, nodes: 'all of them' })).body).toMatchObject({ code: 'invalid_field', field: 'nodes' });
        expect((await c.post('/import', { ...snap, nodes: [42] })).body).toMatchObject({ code: 'invalid_field', field: 'nodes[0]' });
      });
    });
  });

  describe('POST /decay', () => {
    it('decays salience by the half-life from the last change, without versioning or moving updated_at', async () => {
      const { c } = await freshOrg();
      const n = await node(c, { label: 'fading', node_type: 'Claim', props: { content: 'x' }, salience: 0.8 });
      const half = 2;
      time.advance(1);
      const t0 = nowSecs();
      const r = await ok(c.post('/decay', { half_life_secs: half }));
      const t1 = nowSecs();
      expect(r).toEqual({ nodes_decayed: 1, below_threshold: 0, auto_tombstoned: null, dry_run: false });
      const after = (await c.get(`/node/${n.uid}`)).body;
      // s' = 0.8 · 0.5^((now − updated_at) / half); now lies between t0 and t1
      const lo = 0.8 * Math.pow(0.5, (t1 - n.updated_at) / half);
      const hi = 0.8 * Math.pow(0.5, (t0 - n.updated_at) / half);
      expect(after.salience).toBeGreaterThanOrEqual(lo - 1e-9);
      expect(after.salience).toBeLessThanOrEqual(hi + 1e-9);
      expect(after.salience).toBeLessThan(0.8 * Math.pow(0.5, 0.9 / half));
      expect(after).toMatchObject({ version: 1, updated_at: n.updated_at });
      expect((await c.get(`/node/${n.uid}/history`)).body).toHaveLength(1);

      // the next decay counts from the last one, not from updated_at again
      time.advance(0.5);
      const u0 = nowSecs();
      await ok(c.post('/decay', { half_life_secs: half }));
      const u1 = nowSecs();
      const again = (await c.get(`/node/${n.uid}`)).body.salience;
      expect(again).toBeGreaterThanOrEqual(after.salience * Math.pow(0.5, (u1 - t0) / half) - 1e-9);
      expect(again).toBeLessThanOrEqual(after.salience * Math.pow(0.5, (u0 - t1) / half) + 1e-9);
    });

    it('dry_run computes the counts and writes nothing', async () => {
      const { c } = await freshOrg();
      const n = await node(c, { label: 'low', node_type: 'Goal', salience: 0.05 });
      time.advance(0.05);
      const r = await ok(c.post('/decay', { dry_run: true, min_salience: 0.1, min_age_secs: 0 }));
      expect(r).toEqual({ nodes_decayed: 1, below_threshold: 1, auto_tombstoned: 1, dry_run: true });
      expect((await c.get(`/node/${n.uid}`)).body).toMatchObject({ salience: 0.05, tombstone_at: null, version: 1 });
    });

    it('counts below_threshold against min_salience, or 0.1 without it; no auto-tombstone without min_age_secs', async () => {
      const { c } = await freshOrg();
      await node(c, { label: 'a', node_type: 'Goal', salience: 0.05 });
      await node(c, { label: 'b', node_type: 'Goal', salience: 0.5 });
      await node(c, { label: 'c', node_type: 'Goal', salience: 0.9 });
      const slow = 1e9;
      expect(await ok(c.post('/decay', { half_life_secs: slow }))).toMatchObject({ below_threshold: 1, auto_tombstoned: null });
      expect(await ok(c.post('/decay', { half_life_secs: slow, min_salience: 0.6 }))).toMatchObject({ below_threshold: 2, auto_tombstoned: null });
      expect(await ok(c.post('/decay', { half_life_secs: slow, auto_tombstone_threshold: 0.95 }))).toMatchObject({ below_threshold: 3, auto_tombstoned: null });
      expect((await ok(c.get('/stats'))).live_nodes).toBe(3);
    });

    it('auto-tombstones old low-salience nodes with cascade, as the system', async () => {
      const { c } = await freshOrg();
      const low = await node(c, { label: 'forgotten', node_type: 'Idea', salience: 0.05 });
      const high = await node(c, { label: 'remembered', node_type: 'Idea', salience: 0.9 });
      const e = await link(c, low.uid, high.uid, 'RelatedTo');
      time.advance(0.02);
      expect(await ok(c.post('/decay', { half_life_secs: 1e9, min_salience: 0.1, min_age_secs: 3600 }))).toMatchObject({ auto_tombstoned: 0 });
      const r = await ok(c.post('/decay', { half_life_secs: 1e9, min_salience: 0.1, min_age_secs: 0 }));
      expect(r).toMatchObject({ below_threshold: 1, auto_tombstoned: 1 });
      const gone = (await c.get(`/node/${low.uid}`)).body;
      expect(gone).toMatchObject({ tombstone_reason: 'auto_tombstone: low salience', tombstone_by: 'system', version: 2 });
      expect(gone.salience).toBeLessThan(0.05);
      const last = (await c.get(`/node/${low.uid}/history`)).body.at(-1);
      expect(last).toMatchObject({ change_type: 'tombstone', changed_by: 'system', change_reason: 'auto_tombstone: low salience' });
      expect((await c.get(`/edges?from_uid=${low.uid}&include_tombstoned=true`)).body).toEqual([
        expect.objectContaining({ uid: e.uid, tombstone_reason: `cascade:${low.uid}` }),
      ]);
      expect((await c.get(`/node/${high.uid}`)).body.tombstone_at).toBeNull();
    });

    it('decays only the layer and node types asked for', async () => {
      const { c } = await freshOrg();
      const goal = await node(c, { label: 'g', node_type: 'Goal', salience: 0.8 });
      const claim = await node(c, { label: 'c', node_type: 'Claim', props: { content: 'c' }, salience: 0.8 });
      time.advance(0.02);
      expect(await ok(c.post('/decay', { half_life_secs: 1, node_types: ['goal'] }))).toMatchObject({ nodes_decayed: 1 });
      expect((await c.get(`/node/${goal.uid}`)).body.salience).toBeLessThan(0.8);
      expect((await c.get(`/node/${claim.uid}`)).body.salience).toBe(0.8);
      expect(await ok(c.post('/decay', { half_life_secs: 1, layer: 'epistemic' }))).toMatchObject({ nodes_decayed: 1 });
      expect((await c.get(`/node/${claim.uid}`)).body.salience).toBeLessThan(0.8);
    });

    it.each([
      [{ half_life_secs: 0 }, 'half_life_secs'],
      [{ half_life_secs: 'a day' }, 'half_life_secs'],
      [{ min_salience: 1.5 }, 'min_salience'],
      [{ min_age_secs: -1 }, 'min_age_secs'],
      [{ layer: 'dreams' }, 'layer'],
      [{ node_types: [3] }, 'node_types'],
      [{ dry_run: 'please' }, 'dry_run'],
    ])('rejects %j with 400 invalid_field naming %s', async (body, field) => {
      const { c } = await freshOrg();
      const r = await c.post('/decay', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_field', field });
    });
  });

  describe('POST /purge', () => {
    it('removes tombstoned data for good: nodes, their edges, versions, aliases, vectors and points', async () => {
      const { c } = await freshOrg();
      await ok(c.post('/embeddings/configure', { provider: 'builtin', dimensions: 3 }));
      const x = await node(c, { label: 'Xavier', node_type: 'Person', props: { full_name: 'Xavier' } });
      const y = await node(c, { label: 'Yara', node_type: 'Person', props: { full_name: 'Yara' } });
      const z = await node(c, { label: 'Zed', node_type: 'Person', props: { full_name: 'Zed' } });
      const xy = await link(c, x.uid, y.uid, 'RelatedTo');
      const yz = await link(c, y.uid, z.uid, 'RelatedTo');
      await ok(c.post('/alias', { text: 'X', canonical_uid: x.uid }), 201);
      await ok(c.put(`/node/${x.uid}/embedding`, { vector: [1, 0, 0] }));
      const s = await ok(c.post('/reality/series', { action: 'create', label: 'mood', points: [1, 2, 3].map((ts) => ({ ts, value: ts })) }), 201);
      const beforeDeletes = nowSecs() - 0.001;
      await ok(c.delete(`/node/${x.uid}`)); // cascades x→y
      await ok(c.delete(`/edge/${yz.uid}`));
      await ok(c.delete(`/node/${s.uid}`));

      const none = await ok(c.post('/purge', { before: beforeDeletes }));
      expect(none).toEqual({ nodes_purged: 0, edges_purged: 0, versions_purged: 0, aliases_purged: 0, embeddings_purged: 0, points_purged: 0, cutoff: beforeDeletes });
      expect(await ok(c.post('/purge', { older_than_secs: 3600 }))).toMatchObject({ nodes_purged: 0 });

      const r = await ok(c.post('/purge', {}));
      // x (2 versions), series (2), x→y (2), y→z (2)
      expect(r).toEqual({ nodes_purged: 2, edges_purged: 2, versions_purged: 8, aliases_purged: 1, embeddings_purged: 1, points_purged: 3, cutoff: null });
      for (const p of [`/node/${x.uid}`, `/node/${x.uid}/history`, `/node/${s.uid}/history`, `/edge/${xy.uid}/history`, `/edge/${yz.uid}/history`]) {
        const got = await c.get(p);
        expect([p, got.status, got.body?.code]).toEqual([p, 404, 'not_found']);
      }
      expect((await c.get(`/aliases/${x.uid}`)).status).toBe(404);
      // the two live nodes keep their built-in vectors; the purged ones' are gone
      expect(await ok(c.get('/stats'))).toMatchObject({ total_nodes: 2, tombstoned_nodes: 0, total_edges: 0, total_aliases: 0, embedding_count: 2, series_point_count: 0 });
      expect((await c.get(`/node/${y.uid}`)).body.tombstone_at).toBeNull();
      // nothing left to purge
      expect(await ok(c.post('/purge', {}))).toMatchObject({ nodes_purged: 0, edges_purged: 0 });
    });

    it('purges edges touching a purged node even when they are live', async () => {
      const { c } = await freshOrg();
      const a = await node(c, { label: 'a', node_type: 'Goal' });
      const b = await node(c, { label: 'b', node_type: 'Goal' });
      const e = await link(c, a.uid, b.uid, 'DependsOn');
      await ok(c.post('/evolve', { action: 'tombstone', uid: a.uid, cascade: false }));
      expect((await c.get(`/edge/${e.uid}/history`)).body.at(-1).snapshot.tombstone_at).toBeNull();
      expect(await ok(c.post('/purge', {}))).toMatchObject({ nodes_purged: 1, edges_purged: 1 });
      expect((await c.get(`/edges?to_uid=${b.uid}&include_tombstoned=true`)).body).toEqual([]);
    });

    it.each([
      [{ before: 1, older_than_secs: 2 }],
      [{ older_than: 1, before: 2 }],
      [{ before: 'yesterday' }],
      [{ older_than_secs: -5 }],
    ])('rejects %j with 400 invalid_field and purges nothing', async (body) => {
      const { c } = await freshOrg();
      const n = await node(c, { label: 'n', node_type: 'Goal' });
      await ok(c.delete(`/node/${n.uid}`));
      const r = await c.post('/purge', body);
      expect(r.status).toBe(400);
      expect(r.body.code).toBe('invalid_field');
      expect((await c.get(`/node/${n.uid}`)).status).toBe(200);
    });
  });

  describe('POST /clear', () => {
    it('deletes the whole graph, keeps the embedding configuration and leaves other organizations alone', async () => {
      const { c } = await freshOrg();
      const { c: other } = await freshOrg();
      const g = await populate(c);
      const otherNode = await node(other, { label: 'elsewhere', node_type: 'Goal' });
      // the client's vector and the built-in embedder's: every vector /stats counts
      const vectors = (await ok(c.get('/stats'))).embedding_count;
      expect(vectors).toBe(5);
      const r = await ok(c.post('/clear'));
      expect(r).toEqual({
        cleared: true,
        nodes_removed: 6,
        edges_removed: 3,
        versions_removed: 12,
        aliases_removed: 1,
        embeddings_removed: vectors,
        series_points_removed: 2,
        jobs_cancelled: 0,
      });
      expect(await ok(c.get('/stats'))).toMatchObject({
        total_nodes: 0,
        live_nodes: 0,
        tombstoned_nodes: 0,
        total_edges: 0,
        nodes_by_type: {},
        edges_by_type: {},
        total_versions: 0,
        total_aliases: 0,
        embedding_count: 0,
        series_point_count: 0,
        embedding_dimension: 4,
      });
      expect((await c.get(`/node/${g.claim.uid}`)).status).toBe(404);
      expect((await c.get(`/node/${g.claim.uid}/history`)).status).toBe(404);
      const snap = await exportOf(c, '?include_tombstoned=true');
      expect(snap.counts).toEqual({ nodes: 0, edges: 0, aliases: 0, embeddings: 0, series_points: 0 });
      expect(snap.embeddings).toMatchObject({ dimension: 4, metric: 'cosine', items: [] });
      expect((await other.get(`/node/${otherNode.uid}`)).status).toBe(200);
      // the organization keeps working, and a second clear finds nothing
      await node(c, { label: 'fresh start', node_type: 'Goal' });
      expect(await ok(c.post('/clear', {}))).toMatchObject({ nodes_removed: 1, versions_removed: 1 });
    });
  });
});

describe('POST /clear reclaims disk space', () => {
  it('shrinks the event log and the projections after clearing a large graph', async () => {
    const app = await startTestApp();
    try {
      const s = await signUpWithKey(app.url);
      const c = api(app.url, s.key);
      const batch = (i: number) => ({ nodes: Array.from({ length: 500 }, (_, j) => ({ label: `node ${i}-${j} ${'x'.repeat(200)}`, node_type: 'Idea' })) });
      for (let i = 0; i < 8; i++) await ok(c.post('/batch', batch(i)), 201);
      const size = (f: string) => {
        const p = path.join(app.dataDir, f);
        return (fs.existsSync(p) ? fs.statSync(p).size : 0) + (fs.existsSync(p + '-wal') ? fs.statSync(p + '-wal').size : 0);
      };
      const before = { events: size('events.db'), projections: size('projections.db') };
      expect(await ok(c.post('/clear'))).toMatchObject({ nodes_removed: 4000 });
      const after = { events: size('events.db'), projections: size('projections.db') };
      expect(after.events).toBeLessThan(before.events / 2);
      expect(after.projections).toBeLessThan(before.projections / 2);
      expect(fs.statSync(path.join(app.dataDir, 'events.db-wal')).size).toBe(0);
    } finally {
      await app.close();
    }
  }, 60_000);
});
