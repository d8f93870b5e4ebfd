import { ScriptedOpenAIServer } from '@strata/ai/testing/scripted-openai-server';
import { seedProjectScope } from '../support/project-scope';
import { expectError, mk, newOrg, startRetrieval, RetrievalFixture, until } from './retrieval-fixture';
import { EmbeddingJobs } from '../../apps/api/src/retrieval/embeddings/embedding-jobs.service';

/** GET /jobs, GET /jobs/{id}, POST /jobs/{id}/cancel (REFERENCE §9.4) and how POST /clear treats jobs (§8.9). */


describe('jobs', () => {
  let server: ScriptedOpenAIServer;
  let f: RetrievalFixture;
  beforeAll(async () => {
    server = await ScriptedOpenAIServer.start({ apiKey: 'sk-test' });
    f = await startRetrieval({ embeddingProvider: 'openai', embeddingUrl: server.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 });
    expect((await f.w.post('/embeddings/configure', { dimensions: 8 })).status).toBe(200);
  });
  afterAll(async () => {
    await f.close();
    await server.close();
  });

  /** A node with no vector (embedded, then its vector deleted), so embed-all has work. */
  async function nodeWithoutVector(label: string): Promise<string> {
    const uid = await mk(f.w, 'Claim', label);
    await until('automatic embedding', async () => (await f.w.get(`/node/${uid}/embedding`)).status === 200);
    expect((await f.w.delete(`/node/${uid}/embedding`)).status).toBe(200);
    return uid;
  }

  /** The provider's held-back answer: sent when the test says. */
  let answer: () => void = () => undefined;

  /** Starts embed-all with the provider's answer held back, so the job is caught processing. */
  async function slowEmbedAll(): Promise<string> {
    server.enqueue({ type: 'embeddings', hold: new Promise<void>((resolve) => (answer = resolve)) });
    const r = await f.w.post('/ingest/embed-all', undefined);
    expect(r.status).toBe(202);
    await until('the job to start', async () => (await f.w.get(`/jobs/${r.body.job_id}`)).body.status === 'processing');
    return r.body.job_id;
  }

  it('lists jobs newest first with filters and paging; one job reads back whole', async () => {
    await nodeWithoutVector('First job node');
    const first = (await f.w.post('/ingest/embed-all', {})).body.job_id;
    await until('first job', async () => (await f.w.get(`/jobs/${first}`)).body.status === 'completed');
    await nodeWithoutVector('Second job node');
    const second = (await f.w.post('/ingest/embed-all', {})).body.job_id;
    await until('second job', async () => (await f.w.get(`/jobs/${second}`)).body.status === 'completed');

    const all = await f.w.get('/jobs');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ has_more: false, limit: 50, offset: 0 });
    expect(all.body.items.map((j: any) => j.id).slice(0, 2)).toEqual([second, first]);
    const one = await f.w.get(`/jobs/${first}`);
    expect(one.body).toMatchObject({
      id: first,
      kind: 'embed_all',
      status: 'completed',
      document_uid: null,
      progress: { total_chunks: 0, processed_chunks: 0, nodes_created: 0, edges_created: 0 },
      error: null,
      started_at: expect.any(Number),
      completed_at: expect.any(Number),
    });
    expect(one.body).not.toHaveProperty('queue_position');

    const paged = await f.w.get('/jobs?limit=1&offset=0');
    expect(paged.body).toMatchObject({ has_more: true, limit: 1, offset: 0 });
    expect(paged.body.items.map((j: any) => j.id)).toEqual([second]);
    expect((await f.w.get('/jobs?limit=5000')).body.limit).toBe(1000);
    expect((await f.w.get('/jobs?status=completed&kind=embed_all')).body.items.length).toBeGreaterThanOrEqual(2);
    expect((await f.w.get('/jobs?status=cancelled')).body.items).toEqual([]);
    expect((await f.w.get('/jobs?kind=synthesis')).body.items).toEqual([]);

    expectError(await f.w.get('/jobs?status=done'), 400, 'invalid_field', 'status');
    expectError(await f.w.get('/jobs?kind=nothing'), 400, 'invalid_field', 'kind');
    expectError(await f.w.get('/jobs?limit=-1'), 400, 'invalid_field', 'limit');
    expectError(await f.w.get('/jobs?offset=1.5'), 400, 'invalid_field', 'offset');
    expectError(await f.w.get('/jobs/not%20an%20id'), 400, 'invalid_uid');
    expectError(await f.w.get('/jobs/00000000-0000-4000-8000-000000000000'), 404, 'not_found');
  });

  it("another organization neither sees nor cancels a job", async () => {
    const other = await newOrg(f.app);
    const id = (await f.w.get('/jobs')).body.items[0].id;
    expectError(await other.w.get(`/jobs/${id}`), 404, 'not_found');
    expectError(await other.w.post(`/jobs/${id}/cancel`, {}), 404, 'not_found');
    expect((await other.w.get('/jobs')).body.items).toEqual([]);
  });

  it('Project-scoped keys, which may not start an organization-wide job, neither see nor cancel one (403 scope_denied)', async () => {
    const world = await seedProjectScope(f, 'Outside the scoped world');
    const job = (await f.w.post('/ingest/embed-all', {})).body.job_id as string;
    for (const r of [await world.scoped.get('/jobs'), await world.scoped.get(`/jobs/${job}`), await world.scoped.post(`/jobs/${job}/cancel`, {})])
      expect([r.status, r.body.code]).toEqual([403, 'scope_denied']);
    expect((await f.w.get(`/jobs/${job}`)).body.status).not.toBe('cancelled');
  });

  it('cancelling a running job stops it before it records the batch in hand; a finished job cannot be cancelled', async () => {
    const uid = await nodeWithoutVector('Cancelled before its vector');
    const id = await slowEmbedAll();
    expectError(await f.ro.post(`/jobs/${id}/cancel`, {}), 403, 'read_only_credential');
    const c = await f.w.post(`/jobs/${id}/cancel`, undefined);
    expect(c.status).toBe(200);
    expect(c.body).toMatchObject({ id, status: 'cancelled', completed_at: expect.any(Number) });
    answer(); // the provider answers after the cancel
    await f.app.app.get(EmbeddingJobs).settled(id);
    expect((await f.w.get(`/jobs/${id}`)).body).toMatchObject({ status: 'cancelled', progress: { embedded_nodes: 0 } });
    expect((await f.w.get(`/node/${uid}/embedding`)).status).toBe(404);
    expectError(await f.w.post(`/jobs/${id}/cancel`, {}), 409, 'invalid_transition');
    // the node is still pending: a new job embeds it
    const again = (await f.w.post('/ingest/embed-all', {})).body.job_id;
    await until('the next job', async () => (await f.w.get(`/jobs/${again}`)).body.status === 'completed');
    expect((await f.w.get(`/node/${uid}/embedding`)).status).toBe(200);
    expectError(await f.w.post(`/jobs/${again}/cancel`, {}), 409, 'invalid_transition');
  });

  it('POST /clear cancels the running job, forgets every job and counts the vectors it removed', async () => {
    await nodeWithoutVector('Cleared while embedding');
    const vectors = (await f.w.get('/stats')).body.embedding_count;
    expect(vectors).toBeGreaterThan(0);
    const running = await slowEmbedAll();
    const cleared = await f.w.post('/clear', {});
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ cleared: true, jobs_cancelled: 1, embeddings_removed: vectors });
    expectError(await f.w.get(`/jobs/${running}`), 404, 'not_found');
    expect((await f.w.get('/jobs')).body.items).toEqual([]);
    answer(); // the provider answers after the clear
    await f.app.app.get(EmbeddingJobs).settled(running);
    expect((await f.w.get('/stats')).body).toMatchObject({ total_nodes: 0, embedding_count: 0 });
  });
});

describe('the default embedder in /stats and /clear', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval();
  });
  afterAll(() => f.close());

  it('/stats names the model in force before any configuration, and /clear counts built-in vectors', async () => {
    for (let i = 0; i < 3; i++) await mk(f.w, 'Claim', `Lexical vector ${i}`);
    expect((await f.w.get('/stats')).body).toMatchObject({ embedding_count: 3, embedding_dimension: 384, embedding_model: 'strata-lexical-v1' });
    expect((await f.w.post('/clear', {})).body).toMatchObject({ embeddings_removed: 3, jobs_cancelled: 0 });
  });
});
