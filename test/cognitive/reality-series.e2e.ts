import { call, CognitiveFixture, edgesFrom, graphSize, makeNode, node, startCognitive, twoSpaces } from './cognitive-fixture';

describe('POST /reality/series', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const S = '/reality/series';

  it('create → append → window/aggregate/latest; points are not nodes and do not version the series', async () => {
    const org = await makeNode(f.w, 'Organization', 'ACME');
    const before = await graphSize(f.w);
    const report = await makeNode(f.w, 'Document', 'annual report');
    const before2 = await graphSize(f.w);
    const c = await call(f.w, S, { action: 'create', label: 'revenue', entity_uid: org, source_uid: report, props: { unit: 'USD' }, points: [{ ts: 100, value: 1 }] }, 201);
    expect(c).toMatchObject({ node_type: 'Series', layer: 'reality', point_count: 1, edges_created: 2 });
    expect((await edgesFrom(f.w, c.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['About', org],
        ['DerivedFrom', report],
      ].sort(),
    );
    expect(before2.nodes).toBe(before.nodes + 1);
    const points = Array.from({ length: 500 }, (_, i) => ({ ts: 200 + i * 10, value: i }));
    const a = await call(f.w, S, { action: 'append', series_uid: c.uid, points: [...points, { ts: 100, value: 2, note: 'fixed' }] }, 200);
    expect(a).toEqual({ series_uid: c.uid, appended: 500, replaced: 1, point_count: 501, first_ts: 100, last_ts: 5190, latest: { ts: 5190, value: 499 } });
    const after = await graphSize(f.w);
    expect(after.nodes).toBe(before.nodes + 2); // the report and the series; no node per point
    expect(after.points).toBe(before.points + 501);
    const n = await node(f.w, c.uid);
    expect(n.version).toBe(1);
    expect(n.props).toMatchObject({ metric: 'revenue', unit: 'USD', entity_uid: org, point_count: 501, first_ts: 100, last_ts: 5190, latest_value: 499, latest_ts: 5190 });

    const w = await call(f.w, S, { action: 'window', series_uid: c.uid, start: 100, end: 230, limit: 2, offset: 1 }, 200);
    expect(w).toMatchObject({ series_uid: c.uid, start: 100, end: 230, has_more: true, limit: 2, offset: 1 });
    expect(w.items.map((p: any) => p.ts)).toEqual([200, 210]);
    expect(w.items[0]).toEqual({ ts: 200, value: 0, source_uid: null, note: null, recorded_at: expect.any(Number) });
    const clamped = await call(f.w, S, { action: 'window', series_uid: c.uid, limit: 50_000 }, 200);
    expect(clamped.limit).toBe(10_000);
    expect(await call(f.w, S, { action: 'aggregate', series_uid: c.uid, fn: 'count' }, 200)).toMatchObject({ count: 501, value: 501 });
    expect(await call(f.w, S, { action: 'aggregate', series_uid: c.uid, fn: 'max', start: 200, end: 300 }, 200)).toMatchObject({ count: 10, value: 9 });
    const b = await call(f.w, S, { action: 'aggregate', series_uid: c.uid, fn: 'sum', start: 200, end: 400, bucket_secs: 100 }, 200);
    expect(b.buckets).toEqual([
      { start: 200, end: 300, count: 10, value: 45 },
      { start: 300, end: 400, count: 10, value: 145 },
    ]);
    expect(await call(f.w, S, { action: 'latest', series_uid: c.uid }, 200)).toEqual({ series_uid: c.uid, ts: 5190, value: 499, source_uid: null });
    const tooMany = await f.w.post(S, { action: 'aggregate', series_uid: c.uid, bucket_secs: 0.001, start: 0, end: 100 });
    expect(tooMany.body).toMatchObject({ code: 'invalid_field', field: 'bucket_secs' });
    // `end` is exclusive: [0, 10000) in 1-second buckets is exactly the 10,000 allowed
    const exactly = await call(f.w, S, { action: 'aggregate', series_uid: c.uid, fn: 'count', start: 0, end: 10_000, bucket_secs: 1 }, 200);
    expect(exactly.buckets.length).toBeGreaterThan(0);
    const oneMore = await f.w.post(S, { action: 'aggregate', series_uid: c.uid, fn: 'count', start: 0, end: 10_001, bucket_secs: 1 });
    expect(oneMore.body).toMatchObject({ code: 'invalid_field', field: 'bucket_secs' });
  });

  it('one series per (entity, metric); list_for_entity; batch reads in input order', async () => {
    const a = await makeNode(f.w, 'Person', 'Ada');
    const b = await makeNode(f.w, 'Person', 'Bob');
    const sa = await call(f.w, S, { action: 'create', label: 'weight', entity_uid: a, points: [{ ts: 1, value: 60 }, { ts: 2, value: 61 }] }, 201);
    const dup = await f.w.post(S, { action: 'create', label: 'weight', entity_uid: a });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'duplicate', existing_uid: sa.uid });
    const list = await call(f.w, S, { action: 'list_for_entity', entity_uid: a }, 200);
    expect(list).toMatchObject({ has_more: false, limit: 50, offset: 0 });
    expect(list.items.map((s: any) => s.uid)).toEqual([sa.uid]);
    expect(await call(f.w, S, { action: 'batch_latest', entity_uids: [b, a], metric: 'weight' }, 200)).toEqual({
      items: [
        { entity_uid: b, series_uid: null, ts: null, value: null },
        { entity_uid: a, series_uid: sa.uid, ts: 2, value: 61 },
      ],
    });
    expect(await call(f.w, S, { action: 'batch_aggregate', series_uids: [sa.uid], fn: 'mean' }, 200)).toEqual({
      items: [{ entity_uid: a, series_uid: sa.uid, fn: 'mean', count: 2, value: 60.5 }],
    });
    const unknown = await f.w.post(S, { action: 'batch_latest', series_uids: [sa.uid, 'nope'] });
    expect(unknown.status).toBe(404);
    expect((await f.ro.post(S, { action: 'latest', series_uid: sa.uid })).status).toBe(200);
    expect((await f.ro.post(S, { action: 'append', series_uid: sa.uid, points: [{ ts: 3, value: 1 }] })).status).toBe(403);
  });

  it('append is all-or-nothing and validates every point', async () => {
    const s = await call(f.w, S, { action: 'create', label: 'temp' }, 201);
    const before = await graphSize(f.w);
    const bad = await f.w.post(S, { action: 'append', series_uid: s.uid, points: [{ ts: 1, value: 1 }, { ts: 2, value: 1, source_uid: 'missing-src' }] });
    expect(bad.status).toBe(404);
    expect(bad.body).toMatchObject({ code: 'not_found', field: 'points[1].source_uid' });
    expect((await f.w.post(S, { action: 'append', series_uid: s.uid, points: [{ ts: 'x', value: 1 }] })).body).toMatchObject({ code: 'invalid_field', field: 'points[0].ts' });
    const tooMany = await f.w.post(S, { action: 'append', series_uid: s.uid, points: Array.from({ length: 10_001 }, (_, i) => ({ ts: i, value: i })) });
    expect(tooMany.body).toMatchObject({ code: 'invalid_field', field: 'points' });
    expect(await graphSize(f.w)).toEqual(before);
  });

  it('delete hides the points (reads 404) and /evolve restore brings them back', async () => {
    const org = await makeNode(f.w, 'Organization', 'Gone Inc');
    const s = await call(f.w, S, { action: 'create', label: 'hc', entity_uid: org, points: [{ ts: 1, value: 5 }, { ts: 2, value: 6 }] }, 201);
    const d = await call(f.w, S, { action: 'delete', series_uid: s.uid, reason: 'bad data' }, 200);
    expect(d).toEqual({ uid: s.uid, action: 'delete', version: 2, points_tombstoned: 2, edges_tombstoned: 1 });
    expect((await f.w.post(S, { action: 'window', series_uid: s.uid })).status).toBe(404);
    expect((await f.w.post(S, { action: 'batch_latest', entity_uids: [org], metric: 'hc' })).body.items[0].series_uid).toBeNull();
    const restored = await f.w.post('/evolve', { action: 'restore', uid: s.uid });
    expect(restored.status).toBe(200);
    expect((await call(f.w, S, { action: 'latest', series_uid: s.uid }, 200)).value).toBe(6);
  });

  it('a caller limited to one Space deleting a series leaves no live edge to a node it cannot see', async () => {
    const { owner, a, b, inA } = await twoSpaces(f, ['Metrics A', 'Metrics B']);
    const entity = await call(owner, '/node', { node_type: 'Organization', label: 'Hidden Corp', space_uid: b }, 201);
    const s = await call(owner, S, { action: 'create', label: 'headcount', entity_uid: entity.uid, space_uid: a }, 201);
    expect(await call(inA, S, { action: 'delete', series_uid: s.uid }, 200)).toMatchObject({ uid: s.uid, edges_tombstoned: 1 });
    expect((await edgesFrom(owner, s.uid)).map((e) => e.edge_type)).toEqual([]);
  });
});
