import { ScriptedOpenAIServer } from '@strata/ai/testing/scripted-openai-server';
import { SERVER_PROJECTION_NAMES } from '@strata/projections/server/server-projection';
import { StrataConfig } from '@strata/platform/config/strata-config';
import { Api, api, signUpWithKey } from '../support/http';
import { EmbeddedServers } from './support/embedded-servers';
import { eventually } from './support/eventually';
import { Replica, Worker, startReplica, startWorker } from './support/servers-mode-app';

const VECTORS = SERVER_PROJECTION_NAMES[2];

/**
 * Automatic embedding with an external provider in servers mode: one API replica (the holder
 * of the feed's lease) asks the provider about each change once the read models show it,
 * records the vector as an event, and the worker indexes it; a rebuild never asks again.
 */
describe('servers mode: automatic embedding through an external provider', () => {
  let provider: ScriptedOpenAIServer;
  let servers: EmbeddedServers;
  /** The automatic-embedding feed has handled the log up to its head: whatever it asks a provider for, it has asked. */
  const feedCaughtUp = async () => {
    const head = await servers.head();
    await eventually(async () => ((await servers.checkpoints.get('auto-embed'))?.position ?? 0) >= head, 'the automatic-embedding feed catches up');
  };
  let a: Replica;
  let b: Replica;
  let worker: Worker;
  let cfg: Partial<StrataConfig>;

  beforeAll(async () => {
    provider = await ScriptedOpenAIServer.start({ apiKey: 'sk-test' });
    cfg = { embeddingProvider: 'openai', embeddingUrl: provider.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 };
    servers = new EmbeddedServers();
    worker = startWorker(servers, 'w1', cfg);
    a = await startReplica(servers, cfg);
    b = await startReplica(servers, cfg);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await worker?.stop();
    await servers?.close();
    await provider?.close();
  });

  /** the texts the provider was asked to embed so far */
  const inputs = (): string[] => provider.requests.flatMap((r) => [(r.body as { input: string | string[] }).input].flat());
  const expected = (text: string) => ScriptedOpenAIServer.vectorFor(text, 8).map((x) => Math.fround(x));

  it('each change is embedded once, by one replica, whichever replica took the write', async () => {
    const s = await signUpWithKey(a.url);
    await eventually(async () => (await api(b.url, s.key).get('/nodes')).status === 200, 'key usable on B');
    const ca: Api = api(a.url, s.key);
    const cb: Api = api(b.url, s.key);
    const labels = ['Tidal forces stretch moons', 'Comets have icy nuclei', 'Pulsars spin fast'];
    const uids: string[] = [];
    for (const [i, label] of labels.entries()) uids.push((await (i % 2 ? cb : ca).post('/node', { label, node_type: 'Claim' })).body.uid);
    for (const [i, uid] of uids.entries())
      await eventually(async () => {
        const g = await (i % 2 ? ca : cb).get(`/node/${uid}/embedding`);
        return g.status === 200 && JSON.stringify(g.body.vector) === JSON.stringify(expected(labels[i]));
      }, `provider vector of ${labels[i]} indexed`);
    for (const label of labels) expect(inputs().filter((t) => t === label)).toEqual([label]);
    const hit = await cb.post('/embeddings/search-text', { text: labels[2], k: 1 });
    expect(hit.body[0].node.uid).toBe(uids[2]);

    // a rename is embedded again, once; a salience change is not
    const before = provider.requests.length;
    await ca.patch(`/node/${uids[0]}`, { salience: 0.9 });
    await cb.patch(`/node/${uids[1]}`, { label: 'Comets have icy cores' });
    await eventually(async () => JSON.stringify((await ca.get(`/node/${uids[1]}/embedding`)).body.vector) !== JSON.stringify(expected(labels[1])), 're-embedded');
    await feedCaughtUp(); // every request the two changes cause has been made
    const asked = inputs().slice(-(provider.requests.length - before));
    expect(asked.filter((t) => t.startsWith('Comets have icy cores'))).toHaveLength(1);
    expect(asked.some((t) => t.startsWith('Tidal forces'))).toBe(false);
  });

  it('a rebuild of the vector index from the log asks the provider nothing', async () => {
    const s = await signUpWithKey(a.url);
    const c = api(a.url, s.key);
    const uid = (await c.post('/node', { label: 'Nebulae form stars', node_type: 'Claim' })).body.uid;
    await eventually(async () => (await c.get(`/node/${uid}/embedding`)).status === 200, 'embedded');
    const vector = (await c.get(`/node/${uid}/embedding`)).body.vector;
    const calls = provider.requests.length;
    await worker.stop();
    // an older version of the vector projection: the next worker drops the index and replays the log
    const current = (await servers.checkpoints.get(VECTORS))!.version;
    await servers.checkpoints.reset(VECTORS, 0);
    worker = startWorker(servers, 'w2', cfg);
    const head = await servers.head();
    await eventually(async () => {
      const cp = await servers.checkpoints.get(VECTORS);
      return cp?.version === current && cp.position >= head;
    }, 'rebuilt');
    expect((await c.get(`/node/${uid}/embedding`)).body.vector).toEqual(vector);
    expect((await c.post('/embeddings/search', { vector, k: 1 })).body[0].node.uid).toBe(uid);
    await feedCaughtUp();
    expect(provider.requests.length).toBe(calls);
  });
});
