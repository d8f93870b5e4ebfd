import { ScriptedOpenAIServer } from '@strata/ai/testing/scripted-openai-server';
import { api } from '../support/http';
import { startTestApp } from '../support/test-app';
import { mk, startRetrieval, until } from './retrieval-fixture';

/**
 * REFERENCE §9.4: finished jobs are kept at least 7 days, so a restart of the service does not
 * lose them; a job the stop interrupted is reported failed rather than processing forever.
 */
describe('jobs across a restart', () => {
  let server: ScriptedOpenAIServer;
  beforeAll(async () => {
    server = await ScriptedOpenAIServer.start({ apiKey: 'sk-test' });
  });
  afterAll(async () => server.close());

  const config = () => ({ embeddingProvider: 'openai' as const, embeddingUrl: server.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 });

  it('keeps finished jobs, and fails the one a stop interrupted', async () => {
    const f = await startRetrieval(config());
    const dataDir = f.app.dataDir;
    try {
      expect((await f.w.post('/embeddings/configure', { dimensions: 8 })).status).toBe(200);
      const uid = await mk(f.w, 'Claim', 'A node to embed again');
      await until('automatic embedding', async () => (await f.w.get(`/node/${uid}/embedding`)).status === 200);
      expect((await f.w.delete(`/node/${uid}/embedding`)).status).toBe(200);
      const done = (await f.w.post('/ingest/embed-all', {})).body.job_id as string;
      const finished = await until('the first job', async () => {
        const j = (await f.w.get(`/jobs/${done}`)).body;
        return j.status === 'completed' && j;
      });
      // a second job, caught processing (the provider holds its answer back) when the service stops
      expect((await f.w.delete(`/node/${uid}/embedding`)).status).toBe(200);
      server.enqueue({ type: 'embeddings', hold: new Promise(() => undefined) });
      const cut = (await f.w.post('/ingest/embed-all', {})).body.job_id as string;
      await until('the second job to start', async () => (await f.w.get(`/jobs/${cut}`)).body.status === 'processing');
      await f.close({ keepData: true });

      const app = await startTestApp({ ...config(), dataDir });
      try {
        const w = api(app.url, f.key);
        expect((await w.get(`/jobs/${done}`)).body).toEqual(finished);
        const interrupted = (await w.get(`/jobs/${cut}`)).body;
        expect(interrupted).toMatchObject({ id: cut, status: 'failed', error: expect.stringContaining('interrupted'), completed_at: expect.any(Number) });
        expect((await w.get('/jobs')).body.items.map((j: { id: string }) => j.id)).toEqual([cut, done]);
        const cancel = await w.post(`/jobs/${cut}/cancel`, {});
        expect(cancel.status).toBe(409);
        expect(cancel.body).toMatchObject({ code: 'invalid_transition', from_status: 'failed', allowed: [] });
      } finally {
        await app.close();
      }
    } finally {
      await f.close();
    }
  });
});
