import * as fs from 'node:fs';
import * as path from 'node:path';
import { ScriptedOpenAIServer } from '@strata/ai/testing/scripted-openai-server';
import { api } from '../support/http';
import { startTestApp } from '../support/test-app';
import { expectError, mk, newOrg, startRetrieval, RetrievalFixture, until } from './retrieval-fixture';
import { AutoEmbedder } from '../../apps/api/src/retrieval/embeddings/auto-embedder.service';

const zeros = (n: number) => Array.from({ length: n }, () => 0);
const unit = (n: number, i: number) => zeros(n).map((_, j) => (j === i ? 1 : 0));

describe('embeddings with the built-in lexical embedder (the default)', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval();
  });
  afterAll(() => f.close());

  it('embeds new nodes at once, with no configuration, and says the embedder is lexical', async () => {
    const n = await mk(f.w, 'Claim', 'Tidal forces stretch moons');
    const g = await f.w.get(`/node/${n}/embedding`);
    expect(g.status).toBe(200);
    expect(g.body).toMatchObject({ uid: n, dimension: 384, model: 'strata-lexical-v1' });
    expect(g.body.vector).toHaveLength(384);
    const norm = Math.sqrt(g.body.vector.reduce((s: number, x: number) => s + x * x, 0));
    expect(norm).toBeCloseTo(1, 5);
    const same = await f.w.post('/embeddings/search', { vector: g.body.vector, k: 1 });
    expect(same.body[0].node.uid).toBe(n);
    expect(same.body[0].score).toBeCloseTo(1, 5);
    const c = await f.w.post('/embeddings/configure', { dimensions: 384, distance_metric: 'cosine' });
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ provider: 'builtin', model: 'strata-lexical-v1', dimensions: 384, distance_metric: 'cosine', lexical: true, embeddings_dropped: 0 });
    expect(c.body.note).toMatch(/lexical/);
    expect(c.body.configured_at).toEqual(expect.any(Number));
  });

  it('a query that points nowhere (stop words only, a zero vector) has no nearest nodes; hybrid then ranks by text alone', async () => {
    const { w } = await newOrg(f.app);
    const a = await mk(w, 'Concept', 'The harbor of the north');
    await mk(w, 'Concept', 'Copper lanterns at dusk');
    for (const body of [{ text: 'the of and' }, { text: 'the', k: 50 }]) {
      const r = await w.post('/embeddings/search-text', body);
      expect(r.status).toBe(200);
      expect(r.body).toEqual([]);
    }
    const z = await w.post('/embeddings/search', { vector: zeros(384), k: 5 });
    expect(z.status).toBe(200);
    expect(z.body).toEqual([]);
    expect((await w.post('/retrieve', { action: 'semantic', query: 'of the' })).body).toEqual([]);
    const hybrid = await w.post('/retrieve', { action: 'hybrid', query: 'of the', k: 5, explain: true });
    expect(hybrid.status).toBe(200);
    expect(hybrid.body.map((x: any) => x.node.uid)).toContain(a);
    for (const x of hybrid.body) expect(x.legs.map((l: any) => l.leg)).toEqual(['fts']);
  });

  it('search-text: k, node_types (OR), layer, threshold; tombstoned nodes leave and restored ones return', async () => {
    const a = await mk(f.w, 'Claim', 'Saturn rings are made of ice');
    const b = await mk(f.w, 'Goal', 'Photograph Saturn rings');
    const c = await mk(f.w, 'Concept', 'Ring systems of planets');
    const r = await f.w.post('/embeddings/search-text', { text: 'saturn rings', k: 2 });
    expect(r.status).toBe(200);
    expect(r.body).toHaveLength(2);
    expect(r.body.map((x: any) => x.node.uid).sort()).toEqual([a, b].sort());
    const goals = await f.w.post('/embeddings/search-text', { query: 'saturn rings', node_type: 'goal' });
    expect(goals.body.map((x: any) => x.node.uid)).toEqual([b]);
    const both = await f.w.post('/embeddings/search-text', { text: 'rings', node_types: ['Goal', 'Concept'] });
    expect(both.body.map((x: any) => x.node.uid).sort()).toEqual([b, c].sort());
    const layer = await f.w.post('/embeddings/search-text', { text: 'rings', layer: 'reality' });
    expect(layer.body.map((x: any) => x.node.uid)).toEqual([c]);
    const strict = await f.w.post('/embeddings/search-text', { text: 'saturn rings', min_score: 0.99 });
    expect(strict.body).toEqual([]);
    await f.w.post('/evolve', { action: 'tombstone', uid: a });
    expect((await f.w.post('/embeddings/search-text', { text: 'saturn rings ice' })).body.map((x: any) => x.node.uid)).not.toContain(a);
    expectError(await f.w.get(`/node/${a}/embedding`), 404, 'not_found');
    await f.w.post('/evolve', { action: 'restore', uid: a });
    expect((await f.w.post('/embeddings/search-text', { text: 'saturn rings ice', k: 1 })).body[0].node.uid).toBe(a);
  });

  it('PUT pins a client vector (kept across updates) until DELETE; label changes re-embed otherwise', async () => {
    const n = await mk(f.w, 'Claim', 'Pinned vector node');
    const v = unit(384, 7);
    const put = await f.w.put(`/node/${n}/embedding`, { vector: v });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ uid: n, dimension: 384, updated_at: expect.any(Number) });
    await f.w.patch(`/node/${n}`, { label: 'Pinned vector node, renamed' });
    expect((await f.w.get(`/node/${n}/embedding`)).body.vector).toEqual(v);
    const hit = await f.w.post('/embeddings/search', { vector: v, k: 1 });
    expect(hit.body[0]).toMatchObject({ node: { uid: n }, score: 1 });
    expect((await f.w.delete(`/node/${n}/embedding`)).body).toEqual({ uid: n, deleted: true });
    expectError(await f.w.get(`/node/${n}/embedding`), 404, 'not_found');
    expectError(await f.w.delete(`/node/${n}/embedding`), 404, 'not_found');
    await f.w.patch(`/node/${n}`, { label: 'Pinned vector node, renamed again' });
    const auto = await f.w.get(`/node/${n}/embedding`);
    expect(auto.status).toBe(200);
    expect(auto.body.vector).not.toEqual(v);
  });

  it('rejects bad vectors, tombstoned targets and bad search fields', async () => {
    const n = await mk(f.w, 'Claim', 'Vector target');
    expectError(await f.w.put(`/node/${n}/embedding`, { vector: [1, 2, 3] }), 400, 'dimension_mismatch');
    expectError(await f.w.put(`/node/${n}/embedding`, { vector: 'abc' }), 400, 'invalid_field', 'vector');
    expectError(await f.w.put(`/node/${n}/embedding`, { vector: [1, 'x'] }), 400, 'invalid_field', 'vector');
    expectError(await f.w.put(`/node/${n}/embedding`, {}), 400, 'missing_field', 'vector');
    expectError(await f.w.put(`/node/bad!uid/embedding`, { vector: [1] }), 400, 'invalid_uid');
    expectError(await f.w.put(`/node/00000000-0000-4000-8000-000000000000/embedding`, { vector: zeros(384) }), 404, 'not_found');
    await f.w.delete(`/node/${n}`);
    expectError(await f.w.put(`/node/${n}/embedding`, { embedding: unit(384, 1) }), 409, 'tombstoned');
    expectError(await f.w.post('/embeddings/search', { vector: [1, 2] }), 400, 'dimension_mismatch');
    expectError(await f.w.post('/embeddings/search', {}), 400, 'missing_field', 'vector');
    expectError(await f.w.post('/embeddings/search', { vector: unit(384, 0), k: -1 }), 400, 'invalid_field', 'k');
    // 0 is in range (REFERENCE §1.9): nothing asked for, nothing found
    const none = await f.w.post('/embeddings/search', { vector: unit(384, 0), k: 0 });
    expect([none.status, none.body]).toEqual([200, []]);
    expectError(await f.w.post('/embeddings/search', { vector: unit(384, 0), layer: 'x' }), 400, 'invalid_field', 'layer');
    expectError(await f.w.post('/embeddings/search-text', {}), 400, 'missing_field', 'text');
    expectError(await f.w.post('/embeddings/configure', {}), 400, 'missing_field', 'dimensions');
    expectError(await f.w.post('/embeddings/configure', { dimensions: 9000 }), 400, 'invalid_field', 'dimensions');
    expectError(await f.w.post('/embeddings/configure', { dimensions: 8, metric: 'manhattan' }), 400, 'invalid_field', 'distance_metric');
    expectError(await f.w.post('/embeddings/configure', { dimensions: 8, provider: 'openai' }), 400, 'invalid_field', 'provider');
    expectError(await f.ro.post('/embeddings/configure', { dimensions: 8 }), 403, 'read_only_credential');
    expectError(await f.ro.put(`/node/${n}/embedding`, { vector: zeros(384) }), 403, 'read_only_credential');
    expect((await f.ro.post('/embeddings/search-text', { text: 'x' })).status).toBe(200);
  });

  it('refuses values beyond the float32 range on every route taking a vector (they would be stored as Infinity)', async () => {
    const n = await mk(f.w, 'Claim', 'Float32 range target');
    const big: number[] = unit(384, 0);
    big[3] = 1e39;
    const put = await f.w.put(`/node/${n}/embedding`, { vector: big });
    expectError(put, 400, 'invalid_field', 'vector');
    expect(put.body.error).toBe('vector must contain numbers within the float32 range only (magnitude at most 3.4028234663852886e38)');
    expectError(await f.w.put(`/node/${n}/embedding`, { embedding: big.map((x) => -x) }), 400, 'invalid_field', 'embedding');
    expectError(await f.w.post('/embeddings/search', { vector: big }), 400, 'invalid_field', 'vector');
    expectError(await f.w.post('/embeddings/search', { query: big }), 400, 'invalid_field', 'query');
    const imported = await f.w.post('/import', {
      format_version: 1,
      embeddings: { model: 'strata-lexical-v1', dimension: 384, metric: 'cosine', items: [{ uid: n, vector: big }] },
    });
    expectError(imported, 400, 'invalid_field', 'embeddings.items[0].vector');
    // nothing was stored: the node keeps a vector without nulls, and it is still found
    const kept = await f.w.get(`/node/${n}/embedding`);
    expect(kept.status).toBe(200);
    expect(kept.body.vector).not.toContain(null);
    // the largest float32 is a value like any other
    const max: number[] = unit(384, 0);
    max[1] = 3.4028234663852886e38;
    expect((await f.w.put(`/node/${n}/embedding`, { vector: max })).status).toBe(200);
    expect((await f.w.get(`/node/${n}/embedding`)).body.vector.slice(0, 2)).toEqual([1, 3.4028234663852886e38]);
  });

  it('embed-all is a job that embeds live nodes without a vector', async () => {
    const n = await mk(f.w, 'Claim', 'Needs a vector again');
    await f.w.delete(`/node/${n}/embedding`);
    const r = await f.w.post('/ingest/embed-all', undefined);
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ job_id: expect.any(String), nodes_pending: 1 });
    const job = await until('embed-all to finish', async () => {
      const j = await f.w.get(`/jobs/${r.body.job_id}`);
      return j.body.status === 'completed' ? j.body : null;
    });
    expect(job).toMatchObject({ kind: 'embed_all', progress: { total_nodes: 1, embedded_nodes: 1 }, result: { embedded_nodes: 1 } });
    expect((await f.w.get(`/node/${n}/embedding`)).status).toBe(200);
    expectError(await f.w.get('/jobs/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  it('a dimension or metric change needs force while vectors exist; the re-embedding runs as a job', async () => {
    const n = await mk(f.w, 'Claim', 'Re-embedded node');
    const conflict = await f.w.post('/embeddings/configure', { dimensions: 64 });
    expectError(conflict, 409, 'embedding_config_conflict');
    expect((await f.w.get(`/node/${n}/embedding`)).body.dimension).toBe(384);
    const forced = await f.w.post('/embeddings/configure', { dimension: 64, metric: 'dot', force: true });
    expect(forced.status).toBe(200);
    expect(forced.body).toMatchObject({ dimensions: 64, distance_metric: 'dot' });
    expect(forced.body.embeddings_dropped).toBeGreaterThan(5);
    expect(forced.body.job_id).toEqual(expect.any(String));
    await until('re-embedding', async () => (await f.w.get(`/jobs/${forced.body.job_id}`)).body.status === 'completed');
    const g = await f.w.get(`/node/${n}/embedding`);
    expect(g.body.dimension).toBe(64);
    expect((await f.w.post('/embeddings/search-text', { text: 're-embedded node', k: 1 })).body[0].node.uid).toBe(n);
    expectError(await f.w.put(`/node/${n}/embedding`, { vector: zeros(384) }), 400, 'dimension_mismatch');
  });

  it('keeps organizations apart', async () => {
    const n = await mk(f.w, 'Claim', 'Private vector');
    const other = await newOrg(f.app);
    expectError(await other.w.get(`/node/${n}/embedding`), 404, 'not_found');
    expectError(await other.w.delete(`/node/${n}/embedding`), 404, 'not_found');
    expect((await other.w.post('/embeddings/search-text', { text: 'private vector' })).body).toEqual([]);
    const theirs = await mk(other.w, 'Claim', 'Private vector');
    expect((await other.w.post('/embeddings/search-text', { text: 'private vector' })).body.map((x: any) => x.node.uid)).toEqual([theirs]);
  });
});

describe('embeddings turned off by the operator', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval({ embeddingProvider: 'none' });
  });
  afterAll(() => f.close());

  it('answers 501 where nothing can answer, runs hybrid on its text leg, and can be configured', async () => {
    const n = await mk(f.w, 'Claim', 'Offline claim');
    const s = await f.w.post('/embeddings/search-text', { text: 'offline' });
    expectError(s, 501, 'embedding_not_configured');
    expect(s.body).toMatchObject({ embedding_model: null, distance_metric: null });
    expectError(await f.w.post('/retrieve', { action: 'semantic', query: 'offline' }), 501, 'embedding_not_configured');
    expectError(await f.w.post('/embeddings/search', { vector: [1] }), 501, 'embedding_not_configured');
    expectError(await f.w.post('/ingest/embed-all', {}), 501, 'embedding_not_configured');
    expectError(await f.w.put(`/node/${n}/embedding`, { vector: [1] }), 501, 'embedding_not_configured');
    // reading or deleting a node's vector is a vector route too (REFERENCE §8.7), with the same context
    for (const r of [await f.w.get(`/node/${n}/embedding`), await f.w.delete(`/node/${n}/embedding`)]) {
      expectError(r, 501, 'embedding_not_configured');
      expect(r.body).toMatchObject({ embedding_model: null, distance_metric: null });
    }
    // a malformed uid is still 400 first
    expectError(await f.w.get('/node/bad%20uid/embedding'), 400, 'invalid_uid');
    const h = await f.w.post('/retrieve', { action: 'hybrid', query: 'offline', explain: true });
    expect(h.status).toBe(200);
    expect(h.body[0].legs).toEqual([{ leg: 'fts', rank: 1, score: expect.any(Number) }]);
    const c = await f.w.post('/embeddings/configure', { provider: 'builtin', dimensions: 32 });
    expect(c.body).toMatchObject({ provider: 'builtin', dimensions: 32 });
    await until('backfill', async () => (await f.w.get(`/node/${n}/embedding`)).status === 200);
    expect((await f.w.post('/retrieve', { action: 'semantic', query: 'offline claim' })).body[0].node.uid).toBe(n);
  });
});

describe('embeddings from an OpenAI-compatible provider', () => {
  let server: ScriptedOpenAIServer;
  beforeAll(async () => {
    server = await ScriptedOpenAIServer.start({ apiKey: 'sk-test' });
  });
  afterAll(() => server.close());

  it('embeds new and changed nodes after commit, records vectors as events, and never calls the provider on rebuild', async () => {
    const f = await startRetrieval({ embeddingProvider: 'openai', embeddingUrl: server.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 });
    const dataDir = f.app.dataDir;
    const key = f.key;
    let n: string;
    let renamed: number[] = [];
    try {
      const cfg = await f.w.post('/embeddings/configure', { dimensions: 8 });
      expect(cfg.body).toMatchObject({ provider: 'openai', model: 'test-embed', lexical: false });
      n = await mk(f.w, 'Claim', 'Provider embedded claim');
      const first = await until('automatic embedding', async () => {
        const g = await f.w.get(`/node/${n}/embedding`);
        return g.status === 200 ? g.body : null;
      });
      expect(first).toMatchObject({ dimension: 8, model: 'test-embed' });
      expect(first.vector).toEqual(ScriptedOpenAIServer.vectorFor('Provider embedded claim', 8).map((x: number) => Math.fround(x)));
      const calls = server.requests.length;
      // salience changes do not change the embedded text: no new provider call
      await f.w.patch(`/node/${n}`, { salience: 0.9 });
      await f.w.get(`/node/${n}/embedding`); // a vector read settles the commits not yet indexed
      await f.app.app.get(AutoEmbedder).settled();
      expect(server.requests.length).toBe(calls);
      await f.w.patch(`/node/${n}`, { label: 'Provider embedded claim, renamed' });
      await until('re-embedding', async () => server.requests.length > calls);
      const hits = await f.w.post('/embeddings/search-text', { text: 'Provider embedded claim, renamed', k: 1 });
      expect(hits.body[0].node.uid).toBe(n);
      server.enqueue({ type: 'error', status: 400, message: 'bad input' });
      expectError(await f.w.post('/embeddings/search-text', { text: 'anything' }), 502, 'upstream_error');
      renamed = await until('vector of the renamed node', async () => {
        const g = await f.w.get(`/node/${n}/embedding`);
        return JSON.stringify(g.body.vector) !== JSON.stringify(first.vector) ? g.body.vector : null;
      });
      // label + summary (the summary was derived from the first label) went to the provider
      expect(renamed).toEqual(ScriptedOpenAIServer.vectorFor('Provider embedded claim, renamed\nProvider embedded claim', 8).map((x: number) => Math.fround(x)));
      await f.close({ keepData: true });
    } catch (e) {
      await f.close();
      throw e;
    }
    // rebuild every projection and the vector index from the log: no provider call
    fs.rmSync(path.join(dataDir, 'vectors'), { recursive: true, force: true });
    fs.rmSync(path.join(dataDir, 'projections.db'), { force: true });
    const calls = server.requests.length;
    const again = await startTestApp({ dataDir, embeddingProvider: 'openai', embeddingUrl: server.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 });
    try {
      const g = await api(again.url, key).get(`/node/${n!}/embedding`);
      expect(g.body.vector).toEqual(renamed);
      expect(server.requests.length).toBe(calls);
    } finally {
      await again.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 30_000);

  it('exports the provider vectors of an organization on the server default, and an import does not call the provider again', async () => {
    const f = await startRetrieval({ embeddingProvider: 'openai', embeddingUrl: server.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 });
    try {
      // never configured: the server default (the provider) is in force
      const n = await mk(f.w, 'Claim', 'Provider vector to carry');
      const vector = await until('automatic embedding', async () => {
        const g = await f.w.get(`/node/${n}/embedding`);
        return g.status === 200 ? g.body.vector : null;
      });
      const snap = (await f.w.get('/export')).body;
      expect(snap.counts.embeddings).toBe(1);
      expect(snap.embeddings).toEqual({ provider: 'openai', model: 'test-embed', dimension: 8, metric: 'cosine', items: [{ uid: n, vector }] });

      const target = await newOrg(f.app);
      const calls = server.requests.length;
      expect((await target.w.post('/import', snap)).body).toMatchObject({ nodes_imported: 1, embeddings_imported: 1, embeddings_skipped: 0 });
      expect((await target.w.get(`/node/${n}/embedding`)).body).toMatchObject({ vector, dimension: 8, model: 'test-embed' });
      await f.app.app.get(AutoEmbedder).settled(); // the vector read above settled the import's commits
      expect(server.requests.length).toBe(calls);
      const back = (await target.w.get('/export')).body;
      expect({ ...back, exported_at: 0 }).toEqual({ ...snap, exported_at: 0 });
    } finally {
      await f.close();
    }
  }, 30_000);
});

describe('the vector index survives restarts and rebuilds from the log', () => {
  it('persists at shutdown, catches up from an older checkpoint, and rebuilds when deleted', async () => {
    const f = await startRetrieval();
    const dataDir = f.app.dataDir;
    const vectors = path.join(dataDir, 'vectors');
    const a = await mk(f.w, 'Claim', 'Durable vector one');
    const va = (await f.w.get(`/node/${a}/embedding`)).body.vector;
    await f.close({ keepData: true });
    const saved = `${dataDir}-vectors-at-a`;
    fs.cpSync(vectors, saved, { recursive: true });

    let app = await startTestApp({ dataDir });
    let c = api(app.url, f.key);
    expect((await c.get(`/node/${a}/embedding`)).body.vector).toEqual(va);
    const b = await mk(c, 'Claim', 'Durable vector two');
    await c.post('/evolve', { action: 'tombstone', uid: a });
    await app.close({ keepData: true });

    // an index older than the log catches up from its own checkpoint
    fs.rmSync(vectors, { recursive: true, force: true });
    fs.cpSync(saved, vectors, { recursive: true });
    app = await startTestApp({ dataDir });
    c = api(app.url, f.key);
    expect((await c.post('/embeddings/search-text', { text: 'durable vector' })).body.map((x: any) => x.node.uid)).toEqual([b]);
    await app.close({ keepData: true });

    // no index at all: rebuilt from the log
    fs.rmSync(vectors, { recursive: true, force: true });
    app = await startTestApp({ dataDir });
    c = api(app.url, f.key);
    try {
      expect((await c.post('/embeddings/search-text', { text: 'durable vector' })).body.map((x: any) => x.node.uid)).toEqual([b]);
      await c.post('/evolve', { action: 'restore', uid: a });
      expect((await c.get(`/node/${a}/embedding`)).body.vector).toEqual(va);
    } finally {
      await app.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      fs.rmSync(saved, { recursive: true, force: true });
    }
  }, 30_000);
});
