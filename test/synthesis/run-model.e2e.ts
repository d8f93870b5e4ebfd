import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { RetrievalFixture, startRetrieval } from '../retrieval/retrieval-fixture';
import { SynthesisWorld, seedSynthesisWorld } from './synthesis-world';

const NOW = 1_780_000_000;
const KEY = 'sk-synthesis-e2e-KEY-91aa';

describe('POST /synthesis/run with a chat model (scripted OpenAI-compatible server)', () => {
  let llm: ScriptedOpenAIChatServer;
  let f: RetrievalFixture;
  let s: SynthesisWorld;

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: KEY });
    f = await startRetrieval({
      clock: new FixedClock(NOW),
      embeddingProvider: 'none',
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted' },
    });
    s = await seedSynthesisWorld(f.w);
  }, 60_000);
  afterAll(async () => {
    await f.close();
    await llm.close();
  });

  const finished = (id: string) =>
    eventually(
      async () => {
        const r = await f.w.get(`/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
      },
      { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 50 },
    );

  it('the model writes the Article from the cluster; its tokens are metered', async () => {
    const asked = llm.requests.length;
    llm.enqueue({ type: 'json', value: { title: 'Who programmed the engine?', content: 'Sources disagree on who wrote the first program.', questions: ['Did Babbage write earlier programs?'] }, usage: { input: 300, output: 40 } });
    const r = await f.w.post(`/synthesis/run/${s.project}`);
    expect(r.status).toBe(202);
    const job = await finished(r.body.job_id);
    expect(job).toMatchObject({ status: 'completed', result: { articles_created: 1 } });
    const article = (await f.w.get(`/node/${job.result.article_uids[0]}`)).body;
    expect(article).toMatchObject({
      label: 'Who programmed the engine?',
      props: { content: 'Sources disagree on who wrote the first program.', questions: ['Did Babbage write earlier programs?'], article_type: 'synthesis', covers_uid: s.n.ada, generated_by: 'openai:scripted' },
    });
    // the prompt carries the claims, their sources and tensions; structured output was asked for
    const req = llm.requests[asked];
    const prompt = JSON.stringify(req.body);
    for (const text of ['Ada Lovelace wrote the first program for the engine', 'A skeptical biography', 'Contradicts']) expect(prompt).toContain(text);
    expect(req.body.response_format).toMatchObject({ type: 'json_schema' });
    expect((await f.w.get('/v1/usage')).body.llm).toEqual({ calls: 1, input_tokens: 300, output_tokens: 40 });
    // neither the key nor the prompt reaches the job record
    expect(JSON.stringify(job)).not.toContain(KEY);
    expect(JSON.stringify(job)).not.toContain('Bernoulli');
  });

  it('an answer that does not fit twice fails the job and writes nothing', async () => {
    const before = (await f.w.get(`/edges?to_uid=${s.project}&edge_type=PartOfProject`)).body.length;
    llm.enqueue({ type: 'json', value: { title: '', content: 'x', questions: [] } }, { type: 'json', value: { nope: true } });
    const r = await f.w.post(`/synthesis/run/${s.project}`);
    const job = await finished(r.body.job_id);
    expect(job.status).toBe('failed');
    expect(job.error).toContain('synthesis_article');
    expect(job.result).toBeNull();
    expect((await f.w.get(`/edges?to_uid=${s.project}&edge_type=PartOfProject`)).body.length).toBe(before);
  });
});
