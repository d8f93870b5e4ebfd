import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import { READ_LAG_HEADER } from '@strata/platform/unit-of-work/read-lag';
import { Api, api, signUpWithKey } from '../support/http';
import { EmbeddedServers } from './support/embedded-servers';
import { eventually } from './support/eventually';
import { Replica, Worker, startReplica, startWorker } from './support/servers-mode-app';
import { CheckpointWatcher } from '@strata/projections/server/checkpoint-watcher';

/**
 * The projection worker's recovery in servers mode: a projection that fails is retried from
 * the checkpoints without losing or doubling anything, a rebuild from the log gives the same
 * read models, and the API does not mistake a rebuilding read model for a caught-up one.
 */

const VECTORS = SERVER_PROJECTION_NAMES[2];

async function ok<T = any>(p: Promise<{ status: number; body: T; text: string; headers: Headers }>, status = 200): Promise<T> {
  const r = await p;
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text.slice(0, 500)}`);
  return r.body;
}

describe('servers mode: projection worker recovery', () => {
  let servers: EmbeddedServers;
  let app: Replica;
  let worker: Worker | null = null;

  beforeAll(async () => {
    servers = new EmbeddedServers();
    worker = startWorker(servers, 'w1');
    app = await startReplica(servers);
  });
  afterAll(async () => {
    await app?.close();
    await worker?.stop();
    await servers?.close();
  });

  async function freshOrg(): Promise<Api & { key: string }> {
    const key = (await signUpWithKey(app.url)).key;
    return { ...api(app.url, key), key };
  }

  /** What a client sees of an organization: its export, stats, a text search and a vector search. */
  async function view(c: Api, probe: string) {
    const snap = await ok(c.get('/export?include_tombstoned=true'));
    const stats = { ...(await ok(c.get('/stats'))), generated_at: undefined };
    // hits, not BM25 scores: FTS5 statistics of an index built incrementally (deleted rows
    // included) differ from those of the same documents indexed afresh
    const text = (await ok(c.post('/search', { query: 'kettle' }))).map((h: any) => h.uid).sort();
    const vectors = await ok(c.post('/embeddings/search-text', { text: 'kettle water', k: 10 }));
    const embedding = await ok(c.get(`/node/${probe}/embedding`));
    return { snap: { ...snap, exported_at: undefined }, stats, text, vectors, embedding };
  }

  async function populate(c: Api): Promise<string> {
    const kettle = await ok(c.post('/node', { label: 'Kettle test', node_type: 'Evidence', props: { description: 'water measured' } }), 201);
    const claim = await ok(c.post('/node', { label: 'Water boils in a kettle', node_type: 'Claim' }), 201);
    const gone = await ok(c.post('/node', { label: 'Old kettle idea', node_type: 'Idea' }), 201);
    await ok(c.post('/edge', { from_uid: kettle.uid, to_uid: claim.uid, edge_type: 'Supports' }), 201);
    await ok(c.patch(`/node/${claim.uid}`, { label: 'Water boils in a kettle at 100C' }));
    await ok(c.delete(`/node/${gone.uid}`));
    await ok(c.post('/alias', { text: 'the kettle', canonical_uid: kettle.uid }), 201);
    await ok(c.put(`/node/${claim.uid}/embedding`, { vector: Array.from({ length: 384 }, (_, i) => (i === 3 ? 1 : 0)) }));
    return kettle.uid;
  }

  it('a projection that fails is retried from the checkpoints: nothing is lost, nothing applied twice', async () => {
    const c = await freshOrg();
    const realUpsert = servers.vectors.upsert.bind(servers.vectors);
    let failures = 0;
    servers.vectors.upsert = async (org, items) => {
      if (failures++ < 2) throw new Error('vector index unavailable');
      return realUpsert(org, items);
    };
    try {
      const r = await c.post('/node', { label: 'Kettle survives', node_type: 'Evidence' });
      expect(r.status).toBe(201);
      const n = r.body;
      await eventually(async () => (await c.get(`/node/${n.uid}/embedding`)).status === 200, 'vector indexed after the retries');
      expect(failures).toBe(3);
      expect(worker!.problems.join('\n')).toMatch(new RegExp(`projection ${VECTORS} failed .*vector index unavailable`));
      expect(await ok(c.get(`/node/${n.uid}`))).toMatchObject({ version: 1 });
      expect(await ok(c.get('/stats'))).toMatchObject({ total_nodes: 1, total_versions: 1, embedding_count: 1 });
      expect((await ok(c.post('/search', { query: 'kettle' }))).map((h: any) => h.uid)).toEqual([n.uid]);
      expect((await servers.checkpoints.get(VECTORS))?.last_error).toBeNull();
    } finally {
      servers.vectors.upsert = realUpsert;
      worker!.problems.length = 0;
    }
  });

  it('a projection rebuilt from the log (a new projection version) gives the same read models', async () => {
    const c = await freshOrg();
    const probe = await populate(c);
    const before = await view(c, probe);
    await worker!.stop();
    // what the next worker finds: checkpoints of an older projection version
    const current = new Map<string, number>();
    for (const name of SERVER_PROJECTION_NAMES) {
      const cp = (await servers.checkpoints.get(name))!;
      current.set(name, cp.version);
      await servers.checkpoints.reset(name, 0);
      await servers.checkpoints.advance(name, 0, cp.position);
    }
    worker = startWorker(servers, 'w2');
    const head = await servers.head();
    await eventually(async () => {
      // every checkpoint read in the same tick: rebuilt (new version) and caught up
      const cps = await Promise.all(SERVER_PROJECTION_NAMES.map((name) => servers.checkpoints.get(name)));
      return cps.every((cp, i) => !!cp && cp.version === current.get(SERVER_PROJECTION_NAMES[i]) && cp.position >= head);
    }, 'rebuilt');
    expect(await view(c, probe)).toEqual(before);
    expect(worker.problems).toEqual([]);
  });

  it('while the read models are rebuilt, the API does not take them for caught up: a clear is refused, not run on a partial graph', async () => {
    const c = await freshOrg();
    const n = await ok(c.post('/node', { label: 'must not survive a clear', node_type: 'Idea' }), 201);
    await worker?.stop();
    worker = null;
    // the first step of a rebuild (ServerProjectionRunner.session on a new projection version):
    // each projection's data dropped and its checkpoint reset; the log is then replayed
    const stores = servers.projectorStores();
    await stores.graphWriter.reset();
    await stores.resetText();
    await stores.resetVectors();
    for (const name of SERVER_PROJECTION_NAMES) await servers.checkpoints.reset(name, 1);

    const clear = await c.post('/clear');
    expect([clear.status, clear.body.code]).toEqual([503, 'projections_lagging']);
    // a write made now is acknowledged, flagged as not yet readable
    const w = await c.post('/node', { label: 'written during the rebuild', node_type: 'Idea' });
    expect([w.status, w.headers.get(READ_LAG_HEADER)]).toEqual([201, 'true']);

    worker = startWorker(servers, 'w3');
    await eventually(async () => (await c.get(`/node/${w.body.uid}`)).status === 200, 'rebuilt');
    expect(await ok(c.post('/clear'))).toMatchObject({ cleared: true, nodes_removed: 2 });
    expect((await c.get(`/node/${n.uid}`)).status).toBe(404);
  });

  it('an API replica shuts down promptly while the worker is down, even the one running the automatic-embedding feed', async () => {
    const c = await freshOrg();
    await worker?.stop();
    worker = null;
    // the feed's waits for the read models (longer than a write's) still pending
    const pending = new Set<Promise<boolean>>();
    const waitFor = CheckpointWatcher.prototype.waitFor;
    const waits = jest.spyOn(CheckpointWatcher.prototype, 'waitFor').mockImplementation(function (this: CheckpointWatcher, position: number, ms: number) {
      const p = waitFor.call(this, position, ms);
      if (ms > 1000) {
        pending.add(p);
        void p.then(() => pending.delete(p));
      }
      return p;
    });
    const stops = jest.spyOn(CheckpointWatcher.prototype, 'stop');
    const r = await c.post('/node', { label: 'pending', node_type: 'Idea' });
    expect(r.headers.get(READ_LAG_HEADER)).toBe('true');
    // `app` came first: its feed holds the automatic-embedding lease, and waits for the read models
    expect(servers.leases.rows.get('auto-embed')?.owner).toEqual(expect.any(String));
    // the feed is waiting for the read models (up to 30 s) when the replica stops: the stop
    // releases that wait instead of sitting it out (the test's own timeout would catch a hang)
    await eventually(() => pending.size > 0, 'the feed waits for the read models');
    const feedWait = [...pending][0];
    await app.close();
    expect(stops).toHaveBeenCalled();
    expect(await feedWait).toBe(false);
    waits.mockRestore();
    stops.mockRestore();
    app = await startReplica(servers);
    worker = startWorker(servers, 'w4');
    await eventually(async () => (await api(app.url, c.key).get(`/node/${r.body.uid}`)).status === 200, 'projected');
  });
});
