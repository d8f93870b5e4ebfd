import { WrongExpectedRevisionError } from '@strata/event-store/event-store.port';
import { READ_LAG_HEADER } from '@strata/platform/unit-of-work/read-lag';
import { Api, api, signUpWithKey } from '../support/http';
import { EmbeddedServers } from './support/embedded-servers';
import { eventually } from './support/eventually';
import { Replica, Worker, startReplica, startWorker } from './support/servers-mode-app';
import { CheckpointWatcher } from '@strata/projections/server/checkpoint-watcher';

/**
 * Graph writes in servers mode, end to end: two API replicas append to the log, the worker's
 * projector writes the read models, and each write answers once they show it
 * (read-your-writes), on every replica. See support/embedded-servers.ts for what stands in
 * for the servers.
 */

async function ok<T = any>(p: Promise<{ status: number; body: T; text: string; headers: Headers }>, status = 200): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  expect(r.headers.get(READ_LAG_HEADER)).toBeNull(); // the worker runs: every write waits for the read models
  return r.body;
}

describe('servers mode: graph writes through the projection worker', () => {
  let servers: EmbeddedServers;
  let a: Replica;
  let b: Replica;
  let workers: Worker[] = [];
  const holder = () => workers.filter((w) => w.runner.holding);

  beforeAll(async () => {
    servers = new EmbeddedServers();
    workers.push(startWorker(servers, 'w1'));
    a = await startReplica(servers);
    b = await startReplica(servers);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const w of workers) await w.stop();
    await servers?.close();
  });
  afterEach(() => {
    for (const w of workers) expect(w.problems).toEqual([]);
  });

  async function clients(): Promise<{ ca: Api; cb: Api }> {
    const s = await signUpWithKey(a.url);
    // the key reaches B's accounts mirror within the log's delivery latency
    await eventually(async () => (await api(b.url, s.key).get('/nodes')).status === 200, 'key usable on B');
    return { ca: api(a.url, s.key), cb: api(b.url, s.key) };
  }

  it('creates, patches and deletes nodes and edges; each answer is already visible on both replicas', async () => {
    const { ca, cb } = await clients();
    const claim = await ok(ca.post('/node', { label: 'Water boils at 100C', node_type: 'Claim', props: { content: 'at sea level' } }), 201);
    expect(await ok(cb.get(`/node/${claim.uid}`))).toEqual(claim);
    const evidence = await ok(cb.post('/node', { label: 'Kettle test', node_type: 'Evidence', props: { description: 'measured' } }), 201);
    const edge = await ok(ca.post('/edge', { from_uid: evidence.uid, to_uid: claim.uid, edge_type: 'Supports' }), 201);
    const edgeOf = async (c: Api) => (await ok(c.get(`/edges?from_uid=${evidence.uid}&include_tombstoned=true`))).find((e: any) => e.uid === edge.uid);
    expect(await edgeOf(cb)).toMatchObject({ uid: edge.uid, from_uid: evidence.uid, to_uid: claim.uid, version: 1 });

    const patched = await ok(cb.patch(`/node/${claim.uid}`, { props: { certainty_degree: 0.9 } }));
    expect(patched).toMatchObject({ version: 2, props: expect.objectContaining({ certainty_degree: 0.9 }) });
    expect(await ok(ca.get(`/node/${claim.uid}`))).toEqual(patched);
    expect(await ok(ca.patch(`/edge/${edge.uid}`, { weight: 0.25 }))).toMatchObject({ version: 2, weight: 0.25 });
    expect((await edgeOf(cb)).weight).toBe(0.25);
    // expected_version is the client's optimistic lock, checked against the read model
    const stale = await ca.patch(`/node/${claim.uid}`, { label: 'stale', expected_version: 1 });
    expect([stale.status, stale.body.code]).toEqual([409, 'version_conflict']);

    // deleting a node tombstones it and cascades to its edges
    await ok(ca.delete(`/node/${evidence.uid}`));
    expect(await ok(cb.get(`/node/${evidence.uid}`))).toMatchObject({ tombstone_at: expect.any(Number) });
    expect((await edgeOf(cb)).tombstone_at).not.toBeNull();
    expect(await ok(ca.get(`/edges?from_uid=${evidence.uid}`))).toEqual([]);
    expect((await ok(cb.get(`/node/${claim.uid}/history`))).map((h: any) => h.version)).toEqual([1, 2]);
    expect(await ok(cb.get('/stats'))).toMatchObject({ total_nodes: 2, live_nodes: 1, total_edges: 1, live_edges: 0 });
  });

  it('lost races between replicas are decided again on the caught-up read model: no update is lost', async () => {
    const { ca, cb } = await clients();
    const n = await ok(ca.post('/node', { label: 'counter', node_type: 'Idea' }), 201);
    const append = servers.log.append.bind(servers.log);
    let lost = 0;
    servers.log.append = (appends) =>
      append(appends).catch((err: unknown) => {
        if (err instanceof WrongExpectedRevisionError) lost++;
        throw err;
      });
    let results;
    try {
      results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? ca : cb).patch(`/node/${n.uid}`, { props: { step: i } })));
    } finally {
      servers.log.append = append;
    }
    expect(lost).toBeGreaterThan(0); // the races did happen
    const statuses = results.map((r) => r.status);
    // each PATCH either applied (200) or, after three lost races, was refused (409): never a 500
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    const applied = statuses.filter((s) => s === 200).length;
    expect(applied).toBeGreaterThan(0);
    expect((await ok(cb.get(`/node/${n.uid}`))).version).toBe(1 + applied);
    expect(await ok(ca.get(`/node/${n.uid}/history`))).toHaveLength(1 + applied);
  });

  it('/batch is all or nothing: a refused batch leaves no trace, an accepted one shows at once', async () => {
    const { ca, cb } = await clients();
    const count = async () => (await ok(cb.get('/nodes?limit=1000'))).items.length;
    const existing = await ok(ca.post('/node', { label: 'root goal', node_type: 'Goal' }), 201);
    const before = await count();
    const bad = await ca.post('/batch', { nodes: [{ ref: 'a', label: 'ok', node_type: 'Task' }], edges: [{ from_ref: 'a', to_uid: 'ghost', edge_type: 'DependsOn' }] });
    expect([bad.status, bad.body.code, bad.body.index]).toEqual([404, 'not_found', 'edges[0].to_uid']);
    const bad2 = await ca.post('/batch', { nodes: [{ label: 'ok', node_type: 'Task' }, { label: 'bad', node_type: 'Task', props: { nope: 1 } }] });
    expect([bad2.status, bad2.body.code]).toEqual([422, 'unknown_props_fields']);
    expect(await count()).toBe(before);

    const r = await ok(
      ca.post('/batch', {
        nodes: [
          { ref: 'task', label: 'Write docs', node_type: 'Task' },
          { ref: 'plan', label: 'Docs plan', node_type: 'Plan', props: { step_count: 0 } },
        ],
        edges: [
          { from_ref: 'task', to_uid: existing.uid, edge_type: 'Targets', weight: 0.7 },
          { from_ref: 'plan', to_ref: 'task', edge_type: 'PlannedBy' },
        ],
      }),
      201,
    );
    expect(r.node_uids).toHaveLength(2);
    expect(r.edge_uids).toHaveLength(2);
    expect(await count()).toBe(before + 2);
    expect((await ok(cb.get(`/edges?to_uid=${existing.uid}`))).map((e: any) => e.uid)).toEqual([r.edge_uids[0]]);
    expect((await ok(cb.get(`/edges?from_uid=${r.refs.plan}`))).map((e: any) => e.to_uid)).toEqual([r.refs.task]);
  });

  it('with the worker stopped a write still succeeds, flagged X-Strata-Read-Lag; a restarted worker resumes from its checkpoint and loses nothing', async () => {
    const { ca, cb } = await clients();
    const first = await ok(ca.post('/node', { label: 'before the stop', node_type: 'Idea' }), 201);
    for (const w of workers) await w.stop();
    workers = [];
    const checkpoint = (await servers.checkpoints.get('graph'))!.position;

    const waits = jest.spyOn(CheckpointWatcher.prototype, 'waitFor');
    const lagging = await ca.post('/node', { label: 'while stopped', node_type: 'Idea' });
    expect(lagging.status).toBe(201);
    expect(lagging.headers.get(READ_LAG_HEADER)).toBe('true');
    // it waited STRATA_READ_WAIT_MS (1000) for the read models first, and that wait ran out
    const readWaits = waits.mock.calls.map(([, ms], i) => [ms, waits.mock.results[i].value] as const).filter(([ms]) => ms === 1000);
    waits.mockRestore();
    expect(readWaits.length).toBeGreaterThanOrEqual(1);
    expect(await readWaits[0][1]).toBe(false);
    // acknowledged but not yet in the read model
    expect((await cb.get(`/node/${lagging.body.uid}`)).status).toBe(404);
    const more = await Promise.all([1, 2, 3].map((i) => cb.post('/node', { label: `while stopped ${i}`, node_type: 'Idea' })));
    expect(more.map((r) => [r.status, r.headers.get(READ_LAG_HEADER)])).toEqual([1, 2, 3].map(() => [201, 'true']));
    const patched = await cb.patch(`/node/${first.uid}`, { label: 'patched while stopped' });
    expect([patched.status, patched.headers.get(READ_LAG_HEADER)]).toEqual([200, 'true']);
    // a clear would name the organization's streams from a read model that misses some: refused
    const clear = await ca.post('/clear');
    expect([clear.status, clear.body.code]).toEqual([503, 'projections_lagging']);
    // accounts do not wait for the worker (each replica's mirror follows the log itself)
    expect((await signUpWithKey(b.url)).key).toEqual(expect.any(String));

    workers.push(startWorker(servers, 'w2'));
    await eventually(() => workers[0].logs.some((l) => l.startsWith('applying projections')), 'the worker resumes');
    expect(workers[0].logs.filter((l) => l.startsWith('applying projections'))).toEqual([`applying projections from position ${checkpoint} (lease epoch 2)`]);
    for (const uid of [lagging.body.uid, ...more.map((r) => r.body.uid)])
      await eventually(async () => (await ca.get(`/node/${uid}`)).status === 200, `node ${uid} projected after the restart`);
    expect(await ok(ca.get(`/node/${first.uid}`))).toMatchObject({ label: 'patched while stopped', version: 2 });
    // applied exactly once: versions counted once each (2 + 1 + 1 + 1 + 1)
    expect(await ok(cb.get('/stats'))).toMatchObject({ total_nodes: 5, total_versions: 6 });
    // and writes wait for the read models again
    await ok(cb.post('/node', { label: 'after the restart', node_type: 'Idea' }), 201);
  });

  it('two workers: exactly one holds the lease and applies; when it stops the standby takes over', async () => {
    workers.push(startWorker(servers, 'w3'));
    await eventually(() => holder().length === 1, 'one worker holds the lease');
    // the newcomer has asked for the lease too, and been refused
    await eventually(() => servers.leases.acquisitions.includes('w3'), 'the second worker asks for the lease');
    expect(holder()).toHaveLength(1);
    expect(servers.leases.rows.get('projections')?.owner).toBe(holder()[0].owner);
    const standby = workers.find((w) => !w.runner.holding)!;

    const { ca, cb } = await clients();
    const n = await ok(ca.post('/node', { label: 'applied by the holder', node_type: 'Idea' }), 201);
    expect(standby.runner.appliedPosition).toBe(0); // the standby never applied anything

    const active = holder()[0];
    await active.stop();
    workers = workers.filter((w) => w !== active);
    await eventually(() => standby.runner.holding, 'the standby takes the lease released by the holder');
    const m = await ok(cb.post('/node', { label: 'applied by the standby', node_type: 'Idea' }), 201);
    expect(await ok(ca.get(`/node/${m.uid}`))).toMatchObject({ label: 'applied by the standby' });
    expect(await ok(ca.get(`/node/${n.uid}`))).toMatchObject({ label: 'applied by the holder' });
    expect(await ok(ca.get('/stats'))).toMatchObject({ total_nodes: 2, total_versions: 2 });
  });
});

describe('servers mode: plan limits count the nodes the worker projected and the ones on their way', () => {
  let servers: EmbeddedServers;
  let a: Replica;
  let b: Replica;
  let worker: Worker;
  beforeAll(async () => {
    servers = new EmbeddedServers();
    worker = startWorker(servers, 'w1');
    a = await startReplica(servers, { planLimits: { free: { nodes: 3 } } });
    b = await startReplica(servers, { planLimits: { free: { nodes: 3 } } });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await worker?.stop();
    await servers?.close();
  });

  it('over the limit, 403 plan_limit_reached on either replica; nothing written; a delete frees a place', async () => {
    const s = await signUpWithKey(a.url);
    await eventually(async () => (await api(b.url, s.key).get('/nodes')).status === 200, 'key usable on B');
    const ca = api(a.url, s.key);
    const cb = api(b.url, s.key);
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await ok((i % 2 ? cb : ca).post('/node', { label: `n${i}`, node_type: 'Concept' }), 201));
    // B's count includes A's writes once its log subscription delivered them
    await eventually(async () => (await cb.post('/node', { label: 'too many', node_type: 'Concept' })).status === 403, 'limit on B');
    const over = await ca.post('/node', { label: 'too many', node_type: 'Concept' });
    expect([over.status, over.body.code, over.body.max]).toEqual([403, 'plan_limit_reached', 3]);
    expect((await ok(ca.get('/nodes?limit=100'))).items).toHaveLength(3);
    await ok(cb.delete(`/node/${made[0].uid}`));
    await eventually(async () => (await ca.post('/node', { label: 'fits again', node_type: 'Concept' })).status === 201, 'a place freed on A');
    expect((await ok(cb.get('/nodes?limit=100'))).items).toHaveLength(3);
  });
});
