import { Errors } from '../errors';
import { assertSeriesKeysFree, decideTombstoneEdge, decideTombstoneNode, SeriesKey } from '../graph';
import { NodeRecord } from '../records';
import { Body, readEnum, readNumber, readPage, readString, readUid, readUids } from '../validation';
import { EndpointDef, reads, writes } from './action';
import { allNodes, CognitiveView } from './cognitive-view';
import { planCreate } from './create-action';
import { ChangeSet, readResult } from './decision';
import { paginated } from './node-list';
import { requirePresent } from './required';
import { aggregate, bucketize, SERIES_FNS, SeriesFn } from './series-aggregate';
import { cacheOf, checkPointUids, nextCache, PointInput, readPoints, toStored } from './series-points';
import { loadLive, RefCheck } from './triggers';

const SERIES = ['Series'] as const;
const MAX_BATCH = 100;
const ALL = 10_000_000;

async function liveSeries(body: Body, view: CognitiveView): Promise<NodeRecord> {
  requirePresent(body, ['series_uid']);
  const uid = readUid(body, 'series_uid', { required: true })!;
  return (await loadLive(view, [{ uid, field: 'series_uid', types: SERIES }]))[0];
}

function pointSourceRefs(points: readonly PointInput[]): RefCheck[] {
  const seen = new Set<string>();
  const refs: RefCheck[] = [];
  for (const p of points) {
    if (p.source_uid !== null && !seen.has(p.source_uid)) {
      seen.add(p.source_uid);
      refs.push({ uid: p.source_uid, field: `points[${p.index}].source_uid` });
    }
  }
  return refs;
}

/** The live Series holding (entity_uid, metric). */
function liveSeriesWithKey(view: CognitiveView, key: SeriesKey): Promise<NodeRecord[]> {
  return allNodes(view, { node_types: SERIES, props_equals: { entity_uid: key.entity_uid, metric: key.metric } });
}

/** The incoming ts values the series already holds (so they count as replaced). */
async function storedAmong(view: CognitiveView, seriesUid: string, points: readonly { ts: number }[]): Promise<Set<number>> {
  if (!points.length) return new Set();
  const wanted = new Set(points.map((p) => p.ts));
  const lo = Math.min(...wanted);
  const hi = Math.max(...wanted);
  const found = await view.seriesPoints(seriesUid, { start: lo, end: hi + 1, limit: ALL, offset: 0 });
  return new Set(found.items.filter((p) => wanted.has(p.ts)).map((p) => p.ts));
}

/** `create`: the Series node, its About/DerivedFrom edges and any initial points, together. */
const create = writes(async (body, view, ctx, action) => {
  let points: PointInput[] = [];
  const { cs, node } = await planCreate(
    {
      nodeType: 'Series',
      defaults: ({ label }) => ({ metric: label }),
      validate: (b) => {
        points = readPoints(b, { required: false }) ?? [];
      },
      triggers: [
        { field: 'entity_uid', edge: 'About', dir: 'out', arity: 'one', setProp: 'entity_uid' },
        { field: 'source_uid', edge: 'DerivedFrom', dir: 'out', arity: 'one' },
      ],
    },
    body,
    view,
    ctx,
    {
      guard: async ({ node }) => {
        checkPointUids(points);
        await loadLive(view, pointSourceRefs(points));
        // the same rule every write path is held to at commit (GraphTx); here it answers before the points are checked
        await assertSeriesKeysFree([{ before: null, after: node }], (key) => liveSeriesWithKey(view, key));
      },
    },
  );
  const stored = toStored(points, ctx.now);
  const { cache } = nextCache(cacheOf({}, 0), stored, new Set());
  Object.assign(node.props, cache);
  cs.appendPoints(node.uid, stored);
  return cs.createResult(node, action, { point_count: cache.point_count });
});

/** `append`: upserts points by ts, refreshes the cache fields, moves updated_at (no version). */
const append = writes(async (body, view, ctx) => {
  requirePresent(body, ['series_uid', 'points']);
  const points = readPoints(body, { required: true })!;
  readUid(body, 'series_uid', { required: true });
  checkPointUids(points);
  const series = await liveSeries(body, view);
  await loadLive(view, pointSourceRefs(points));
  const stored = toStored(points, ctx.now);
  const count = await view.seriesPointCount(series.uid);
  const { cache, appended, replaced } = nextCache(cacheOf(series.props, count), stored, await storedAmong(view, series.uid, stored));
  const cs = new ChangeSet(ctx);
  cs.appendPoints(series.uid, stored);
  cs.touch(series.uid, { ...cache });
  return cs.respond(200, {
    series_uid: series.uid,
    appended,
    replaced,
    point_count: cache.point_count,
    first_ts: cache.first_ts,
    last_ts: cache.last_ts,
    latest: { ts: cache.latest_ts, value: cache.latest_value },
  });
});

function readWindow(body: Body): { start?: number; end?: number } {
  const start = readNumber(body, 'start');
  const end = readNumber(body, 'end');
  if (start !== undefined && end !== undefined && end < start) throw Errors.invalidField('end', 'end must not be before start');
  return { start, end };
}

const window = reads(async (body, view) => {
  requirePresent(body, ['series_uid']);
  const w = readWindow(body);
  const order = readEnum(body, 'order', ['asc', 'desc'] as const) ?? 'asc';
  const page = readPage(body, { limit: 1000, max: 10_000 });
  const series = await liveSeries(body, view);
  const r = await view.seriesPoints(series.uid, { ...w, order, ...page });
  return readResult({ series_uid: series.uid, start: w.start ?? null, end: w.end ?? null, ...paginated(r.items.map(pointOut), r.has_more, page) });
});

function pointOut(p: { ts: number; value: number; source_uid: string | null; note: string | null; recorded_at: number }) {
  return { ts: p.ts, value: p.value, source_uid: p.source_uid, note: p.note, recorded_at: p.recorded_at };
}

async function windowPoints(view: CognitiveView, uid: string, w: { start?: number; end?: number }) {
  return (await view.seriesPoints(uid, { ...w, order: 'asc', limit: ALL, offset: 0 })).items;
}

const aggregateAction = reads(async (body, view) => {
  requirePresent(body, ['series_uid']);
  const fn: SeriesFn = readEnum(body, 'fn', SERIES_FNS) ?? 'mean';
  const w = readWindow(body);
  const bucketSecs = readNumber(body, 'bucket_secs', { min: 0, exclusiveMin: true });
  const series = await liveSeries(body, view);
  const points = await windowPoints(view, series.uid, w);
  const head = { series_uid: series.uid, fn, start: w.start ?? null, end: w.end ?? null };
  if (bucketSecs === undefined) return readResult({ ...head, count: points.length, value: aggregate(fn, points) });
  return readResult({ ...head, bucket_secs: bucketSecs, buckets: bucketize(fn, points, bucketSecs, w.start ?? 0, w) });
});

const latest = reads(async (body, view) => {
  const series = await liveSeries(body, view);
  const p = (await view.seriesPoints(series.uid, { order: 'desc', limit: 1, offset: 0 })).items[0];
  return readResult({ series_uid: series.uid, ts: p?.ts ?? null, value: p?.value ?? null, source_uid: p?.source_uid ?? null });
});

const listForEntity = reads(async (body, view) => {
  requirePresent(body, ['entity_uid']);
  const metric = readString(body, 'metric', { max: 1000 });
  const page = readPage(body, { limit: 50, max: 1000 });
  const uid = readUid(body, 'entity_uid', { required: true })!;
  await loadLive(view, [{ uid, field: 'entity_uid' }]);
  const r = await view.findNodes(
    { node_types: SERIES, props_equals: { entity_uid: uid, ...(metric !== undefined ? { metric } : {}) } },
    page,
    'updated_desc',
  );
  return readResult(paginated(r.items, r.has_more, page));
});

/** The series a batch read names: `series_uids`, or `entity_uids` with a `metric`. */
async function selectSeries(body: Body, view: CognitiveView): Promise<{ entity_uid: string | null; series: NodeRecord | null }[]> {
  const bySeries = body.series_uids !== undefined && body.series_uids !== null;
  const byEntity = body.entity_uids !== undefined && body.entity_uids !== null;
  if (!bySeries && !byEntity) throw Errors.missingField('series_uids', 'give series_uids, or entity_uids with a metric');
  if (bySeries && byEntity) throw Errors.invalidField('series_uids', 'give series_uids or entity_uids, not both');
  if (bySeries) {
    const uids = readUids(body, 'series_uids', { max: MAX_BATCH, nonEmpty: true })!;
    const nodes = await loadLive(view, uids.map((uid) => ({ uid, field: 'series_uids', types: SERIES })));
    return nodes.map((s) => ({ entity_uid: typeof s.props.entity_uid === 'string' ? s.props.entity_uid : null, series: s }));
  }
  requirePresent(body, ['metric']);
  const metric = readString(body, 'metric', { required: true, max: 1000 })!;
  const uids = readUids(body, 'entity_uids', { max: MAX_BATCH, nonEmpty: true })!;
  const out = [];
  for (const uid of uids) {
    const s = (await allNodes(view, { node_types: SERIES, props_equals: { entity_uid: uid, metric } }))[0] ?? null;
    out.push({ entity_uid: uid, series: s });
  }
  return out;
}

const batchLatest = reads(async (body, view) => {
  const items = [];
  for (const { entity_uid, series } of await selectSeries(body, view)) {
    const p = series ? (await view.seriesPoints(series.uid, { order: 'desc', limit: 1, offset: 0 })).items[0] : undefined;
    items.push({ entity_uid, series_uid: series?.uid ?? null, ts: p?.ts ?? null, value: p?.value ?? null });
  }
  return readResult({ items });
});

const batchAggregate = reads(async (body, view) => {
  const fn: SeriesFn = readEnum(body, 'fn', SERIES_FNS) ?? 'mean';
  const w = readWindow(body);
  const items = [];
  for (const { entity_uid, series } of await selectSeries(body, view)) {
    const points = series ? await windowPoints(view, series.uid, w) : [];
    items.push({ entity_uid, series_uid: series?.uid ?? null, fn, count: points.length, value: aggregate(fn, points) });
  }
  return readResult({ items });
});

/** `delete`: tombstones the Series and its edges; its points are hidden until a restore. */
const remove = writes(async (body, view, ctx, action) => {
  const reason = readString(body, 'reason', { max: 1000 }) ?? null;
  const series = await liveSeries(body, view);
  const cs = new ChangeSet(ctx);
  const next = cs.tombstoneNode(decideTombstoneNode(series, reason, ctx)!, reason);
  const cascade = `cascade:${series.uid}`;
  // the cascade covers the edges to nodes the caller cannot see too: none stays live on a tombstone
  const edges = await (view.unscoped ?? view).edges({ touching: series.uid });
  for (const e of edges) cs.tombstoneEdge(decideTombstoneEdge(e, cascade, ctx)!, cascade);
  const seen = await view.edges({ touching: series.uid });
  return cs.respond(200, {
    uid: series.uid,
    action,
    version: next.version,
    points_tombstoned: await view.seriesPointCount(series.uid),
    edges_tombstoned: seen.length,
  });
});

/** REFERENCE §4.3 `/reality/series`: points are events on the series stream, never nodes. */
export const REALITY_SERIES: EndpointDef = {
  path: 'reality/series',
  actions: {
    create,
    append,
    window,
    aggregate: aggregateAction,
    latest,
    list_for_entity: listForEntity,
    batch_latest: batchLatest,
    batch_aggregate: batchAggregate,
    delete: remove,
  },
};
