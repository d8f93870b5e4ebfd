import { REALITY_SERIES } from './reality-series';
import { aggregate, bucketize } from './series-aggregate';
import { createdOf, edgesOf, failure, given, givenNode, InMemoryView, testContext, when } from './testing/in-memory-view';

describe('series aggregates', () => {
  const pts = [1, 2, 3, 4].map((v, i) => ({ ts: i * 10, value: v }));
  it.each([
    ['count', 4],
    ['sum', 10],
    ['mean', 2.5],
    ['min', 1],
    ['max', 4],
    ['first', 1],
    ['last', 4],
    ['stddev', Math.sqrt(1.25)],
  ] as const)('%s', (fn, expected) => expect(aggregate(fn, pts)).toBeCloseTo(expected));

  it('an empty window has count 0 and a null value', () => {
    expect(aggregate('count', [])).toBe(0);
    expect(aggregate('mean', [])).toBeNull();
  });

  it('buckets align to the origin and omit empty ones', () => {
    expect(bucketize('sum', [{ ts: 1, value: 1 }, { ts: 4, value: 2 }, { ts: 25, value: 5 }], 10, 0, {})).toEqual([
      { start: 0, end: 10, count: 2, value: 3 },
      { start: 20, end: 30, count: 1, value: 5 },
    ]);
  });

  it('more than 10,000 buckets is refused', () => {
    expect(() => bucketize('sum', [], 1, 0, { start: 0, end: 20_000 })).toThrow(expect.objectContaining({ code: 'invalid_field', context: { field: 'bucket_secs' } }));
  });
});

describe('/reality/series', () => {
  it('create: metric defaults to the label, About the entity, initial points cached', async () => {
    const view = new InMemoryView();
    const org = givenNode(view, 'Organization', 'ACME');
    const d = await when(REALITY_SERIES, { action: 'create', label: 'revenue', entity_uid: org.uid, props: { unit: 'USD', point_count: 99 }, points: [{ ts: 2, value: 20 }, { ts: 1, value: 10 }] }, view, testContext());
    const s = createdOf(d)[0];
    expect(s.props).toMatchObject({ metric: 'revenue', unit: 'USD', entity_uid: org.uid, point_count: 2, first_ts: 1, last_ts: 2, latest_ts: 2, latest_value: 20 });
    expect(edgesOf(d, 'About')[0]).toMatchObject({ from_uid: s.uid, to_uid: org.uid });
    expect(d.changes.filter((c) => c.type === 'NodeCreated')).toHaveLength(1); // points are not nodes
    expect(d.changes).toContainEqual(expect.objectContaining({ type: 'SeriesPointsAppended', data: expect.objectContaining({ series_uid: s.uid }) }));
    expect(d.body).toMatchObject({ point_count: 2, node_type: 'Series' });
  });

  it('create: one live series per (entity, metric)', async () => {
    const view = new InMemoryView();
    const org = givenNode(view, 'Organization', 'ACME');
    const ctx = testContext(); // one context: fresh uids for the second create
    const first = await given(REALITY_SERIES, { action: 'create', label: 'revenue', entity_uid: org.uid }, view, ctx);
    ctx.tick(300);
    expect(await failure(when(REALITY_SERIES, { action: 'create', label: 'Revenue 2', entity_uid: org.uid, props: { metric: 'revenue' } }, view, ctx))).toMatchObject({
      status: 409,
      code: 'duplicate',
      existing_uid: (first.body as { uid: string }).uid,
    });
  });

  it('append upserts by ts, refreshes the cache and is not versioned', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const s = createdOf(await given(REALITY_SERIES, { action: 'create', label: 'temp', points: [{ ts: 10, value: 1 }] }, view, ctx))[0];
    const d = await given(REALITY_SERIES, { action: 'append', series_uid: s.uid, points: [{ ts: 10, value: 5 }, { ts: 30, value: 3 }, { ts: 20, value: 2 }, { ts: 30, value: 4 }] }, view, ctx);
    expect(d.body).toEqual({ series_uid: s.uid, appended: 2, replaced: 1, point_count: 3, first_ts: 10, last_ts: 30, latest: { ts: 30, value: 4 } });
    expect(d.changes.map((c) => c.type)).toEqual(['SeriesPointsAppended', 'NodeTouched']);
    expect((await view.node(s.uid))!.version).toBe(1);
    const again = await when(REALITY_SERIES, { action: 'append', series_uid: s.uid, points: [{ ts: 20, value: 2 }] }, view, ctx);
    expect(again.body).toMatchObject({ appended: 0, replaced: 1, point_count: 3 });
  });

  it('append validates points before anything else', async () => {
    const view = new InMemoryView();
    const s = createdOf(await given(REALITY_SERIES, { action: 'create', label: 't' }, view, testContext()))[0];
    const bad = (points: unknown) => failure(when(REALITY_SERIES, { action: 'append', series_uid: s.uid, points }, view, testContext()));
    expect(await bad([])).toMatchObject({ code: 'invalid_field', field: 'points' });
    expect(await bad([{ ts: 1 }])).toMatchObject({ code: 'missing_field', field: 'points[0].value' });
    expect(await bad([{ ts: 1, value: 'x' }])).toMatchObject({ code: 'invalid_field', field: 'points[0].value' });
    expect(await bad(Array.from({ length: 10_001 }, (_, i) => ({ ts: i, value: i })))).toMatchObject({ code: 'invalid_field', field: 'points' });
    expect(await bad([{ ts: 1, value: 1, source_uid: 'nope' }])).toMatchObject({ status: 404, field: 'points[0].source_uid' });
    const goal = givenNode(view, 'Goal', 'g');
    expect(await failure(when(REALITY_SERIES, { action: 'append', series_uid: goal.uid, points: [{ ts: 1, value: 1 }] }, view, testContext()))).toMatchObject({
      code: 'wrong_node_type',
      expected: ['Series'],
    });
  });

  it('window, aggregate and latest read the points', async () => {
    const view = new InMemoryView();
    const s = createdOf(await given(REALITY_SERIES, { action: 'create', label: 't', points: [0, 1, 2, 3, 4].map((i) => ({ ts: i * 60, value: i })) }, view, testContext()))[0];
    const w = await when(REALITY_SERIES, { action: 'window', series_uid: s.uid, start: 60, end: 240, order: 'desc', limit: 2 }, view, testContext());
    expect(w.body).toMatchObject({ series_uid: s.uid, start: 60, end: 240, has_more: true, limit: 2, offset: 0 });
    expect((w.body as { items: { ts: number }[] }).items.map((p) => p.ts)).toEqual([180, 120]);
    const agg = await when(REALITY_SERIES, { action: 'aggregate', series_uid: s.uid, fn: 'max' }, view, testContext());
    expect(agg.body).toEqual({ series_uid: s.uid, fn: 'max', start: null, end: null, count: 5, value: 4 });
    const buckets = await when(REALITY_SERIES, { action: 'aggregate', series_uid: s.uid, fn: 'count', start: 0, bucket_secs: 120 }, view, testContext());
    expect((buckets.body as { buckets: unknown[] }).buckets).toEqual([
      { start: 0, end: 120, count: 2, value: 2 },
      { start: 120, end: 240, count: 2, value: 2 },
      { start: 240, end: 360, count: 1, value: 1 },
    ]);
    const latest = await when(REALITY_SERIES, { action: 'latest', series_uid: s.uid }, view, testContext());
    expect(latest.body).toEqual({ series_uid: s.uid, ts: 240, value: 4, source_uid: null });
  });

  it('list_for_entity, batch_latest and batch_aggregate', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const a = givenNode(view, 'Organization', 'A');
    const b = givenNode(view, 'Organization', 'B');
    const sa = createdOf(await given(REALITY_SERIES, { action: 'create', label: 'price', entity_uid: a.uid, points: [{ ts: 1, value: 5 }, { ts: 2, value: 7 }] }, view, ctx))[0];
    const list = await when(REALITY_SERIES, { action: 'list_for_entity', entity_uid: a.uid }, view, ctx);
    expect(list.body).toMatchObject({ items: [{ uid: sa.uid }], has_more: false, limit: 50, offset: 0 });
    const latest = await when(REALITY_SERIES, { action: 'batch_latest', entity_uids: [b.uid, a.uid], metric: 'price' }, view, ctx);
    expect(latest.body).toEqual({
      items: [
        { entity_uid: b.uid, series_uid: null, ts: null, value: null },
        { entity_uid: a.uid, series_uid: sa.uid, ts: 2, value: 7 },
      ],
    });
    const agg = await when(REALITY_SERIES, { action: 'batch_aggregate', series_uids: [sa.uid], fn: 'sum' }, view, ctx);
    expect(agg.body).toEqual({ items: [{ entity_uid: a.uid, series_uid: sa.uid, fn: 'sum', count: 2, value: 12 }] });
    expect(await failure(when(REALITY_SERIES, { action: 'batch_latest', series_uids: [sa.uid, 'missing'] }, view, ctx))).toMatchObject({ status: 404, uid: 'missing' });
    expect(await failure(when(REALITY_SERIES, { action: 'batch_latest', entity_uids: [a.uid] }, view, ctx))).toMatchObject({ code: 'missing_field', field: 'metric' });
    expect(await failure(when(REALITY_SERIES, { action: 'batch_latest', series_uids: Array.from({ length: 101 }, (_, i) => `s${i}`) }, view, ctx))).toMatchObject({ code: 'invalid_field' });
  });

  it('delete tombstones the series and its edges; its reads then 404', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const org = givenNode(view, 'Organization', 'A');
    const s = createdOf(await given(REALITY_SERIES, { action: 'create', label: 'x', entity_uid: org.uid, points: [{ ts: 1, value: 1 }] }, view, ctx))[0];
    const d = await given(REALITY_SERIES, { action: 'delete', series_uid: s.uid, reason: 'wrong' }, view, ctx);
    expect(d.body).toEqual({ uid: s.uid, action: 'delete', version: 2, points_tombstoned: 1, edges_tombstoned: 1 });
    expect(await failure(when(REALITY_SERIES, { action: 'latest', series_uid: s.uid }, view, ctx))).toMatchObject({ status: 404 });
  });
});
