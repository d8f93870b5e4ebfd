import * as path from 'node:path';
import Database from 'better-sqlite3';
import { ScriptedOpenAIServer } from '@strata/ai/testing/scripted-openai-server';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { Api, api } from '../support/http';
import { startTestApp } from '../support/test-app';
import { startRetrieval, until } from './retrieval-fixture';

/**
 * REFERENCE §9.4: finished jobs are kept at least 7 days, so a restart of the service does not
 * lose them. Embedding jobs run on the durable runner: one a stop or a crash interrupted is
 * taken up again by the next process and goes on from its checkpoint, so the nodes it had
 * embedded are not sent to the provider again.
 */
describe('embedding jobs across a restart', () => {
  let server: ScriptedOpenAIServer;
  /** the provider's held-back answers, let go at the end so that the server can close */
  const held: (() => void)[] = [];
  beforeAll(async () => {
    server = await ScriptedOpenAIServer.start({ apiKey: 'sk-test' });
  });
  afterAll(async () => {
    for (const release of held) release();
    await server.close();
  });

  const config = () => ({ embeddingProvider: 'openai' as const, embeddingUrl: server.baseUrl, embeddingKey: 'sk-test', embeddingModel: 'test-embed', embeddingDimensions: 8 });
  /** the texts sent to the provider since request `from` */
  const textsSince = (from: number) =>
    server.requests.slice(from).flatMap((r) => ((r.body as { input?: string[] } | null)?.input ?? []));
  /** 70 nodes: a re-embedding takes two provider batches (64, then 6) */
  const NODES = 70;

  async function seed(w: Api): Promise<string[]> {
    expect((await w.post('/embeddings/configure', { dimensions: 8 })).status).toBe(200);
    const batch = await w.post('/batch', { nodes: Array.from({ length: NODES }, (_, i) => ({ node_type: 'Claim', label: `Restart claim ${i}` })), edges: [] });
    expect(batch.status).toBe(201);
    await until('automatic embedding', async () => (await w.get('/stats')).body.embedding_count === NODES);
    return batch.body.node_uids;
  }

  /** Asks for a re-embedding under a new model, the provider holding back its second answer; resolves once the first batch is recorded. */
  async function reembedCaughtHalfway(w: Api, model: string): Promise<{ id: string; sent: number }> {
    const from = server.requests.length;
    server.enqueue({ type: 'embeddings' }, { type: 'embeddings', hold: new Promise<void>((resolve) => held.push(resolve)) });
    const configured = await w.post('/embeddings/configure', { dimensions: 8, model });
    expect(configured.status).toBe(200);
    const id = configured.body.job_id as string;
    await until('the first batch', async () => {
      const j = (await w.get(`/jobs/${id}`)).body;
      return j.status === 'processing' && j.progress.embedded_nodes === 64 && server.requests.length === from + 2;
    });
    expect(textsSince(from)).toHaveLength(NODES); // 64 answered, 6 held back
    return { id, sent: server.requests.length };
  }

  /** The job once it completed. */
  const completed = (w: Api, id: string, what: string) =>
    until(what, async () => {
      const j = (await w.get(`/jobs/${id}`)).body;
      return j.status === 'completed' && j;
    });

  it('keeps finished jobs, and resumes the one a stop interrupted where it was', async () => {
    const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    const f = await startRetrieval({ ...config(), clock });
    const dataDir = f.app.dataDir;
    try {
      const uids = await seed(f.w);
      expect((await f.w.delete(`/node/${uids[0]}/embedding`)).status).toBe(200);
      const done = (await f.w.post('/ingest/embed-all', {})).body.job_id as string;
      const finished = await completed(f.w, done, 'the embed-all job');
      expect(finished.result).toEqual({ embedded_nodes: 1, failed_nodes: 0 });
      clock.advance(1);
      const first = await reembedCaughtHalfway(f.w, 'model-b');
      await f.close({ keepData: true });

      const app = await startTestApp({ ...config(), dataDir, clock });
      try {
        const w = api(app.url, f.key);
        expect((await w.get(`/jobs/${done}`)).body).toEqual(finished);
        expect((await w.get('/jobs')).body.items.map((j: { id: string }) => j.id)).toEqual([first.id, done]);
        const job = await completed(w, first.id, 'the resumed job');
        expect(job).toMatchObject({ kind: 'embed_all', progress: { embedded_nodes: NODES, processed_nodes: NODES, failed_nodes: 0 }, result: { embedded_nodes: NODES, failed_nodes: 0 } });
        // only the six nodes of the batch in hand went to the provider again
        expect(textsSince(first.sent)).toHaveLength(NODES - 64);
        for (const uid of [uids[0], uids[NODES - 1]]) expect((await w.get(`/node/${uid}/embedding`)).body.model).toBe('model-b');
        expect((await w.post(`/jobs/${first.id}/cancel`, {})).body).toMatchObject({ code: 'invalid_transition', from_status: 'completed', allowed: [] });
      } finally {
        await app.close();
      }
    } finally {
      await f.close();
    }
  });

  it('takes up the job of a process that died holding it once its lease lapses, from its checkpoint', async () => {
    const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    const f = await startRetrieval({ ...config(), clock });
    const dataDir = f.app.dataDir;
    try {
      const uids = await seed(f.w);
      const cut = await reembedCaughtHalfway(f.w, 'model-c');
      await f.close({ keepData: true });
      // what a killed process leaves behind: the job still running, under a lease nobody renews
      const ops = new Database(path.join(dataDir, 'ops.db'));
      ops.prepare("UPDATE queued_jobs SET status = 'running', owner = 'a-dead-process', lease_until = ? WHERE id = ?").run(clock.now() + 60, cut.id);
      ops.close();

      const app = await startTestApp({ ...config(), dataDir, clock });
      try {
        const w = api(app.url, f.key);
        expect((await w.get(`/jobs/${cut.id}`)).body).toMatchObject({ status: 'processing', progress: { embedded_nodes: 64 } });
        clock.advance(61); // the dead process's lease lapses: this one's runner claims the job
        const job = await completed(w, cut.id, 'the job taken up');
        expect(job.result).toEqual({ embedded_nodes: NODES, failed_nodes: 0 });
        expect(textsSince(cut.sent)).toHaveLength(NODES - 64);
        expect((await w.get(`/node/${uids[NODES - 1]}/embedding`)).body.model).toBe('model-c');
      } finally {
        await app.close();
      }
    } finally {
      await f.close();
    }
  });
});
