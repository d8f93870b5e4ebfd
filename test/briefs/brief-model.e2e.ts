import { ScriptedAnthropicServer } from '@strata/ai/testing/scripted-anthropic-server';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { Api, api, createApiKey, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { expectError } from '../retrieval/retrieval-fixture';
import { ALPHA, BETA, BriefWorld, seedBriefWorld } from './brief-world';

const KEY = 'sk-brief-e2e-KEY-5c1f';
const NOW = 1_790_000_000;

describe.each([
  ['openai', () => ScriptedOpenAIChatServer.start({ apiKey: KEY })],
  ['anthropic', () => ScriptedAnthropicServer.start({ apiKey: KEY })],
] as const)('the model-backed brief (STRATA_LLM_PROVIDER=%s, scripted server on loopback)', (provider, start) => {
  let llm: ScriptedOpenAIChatServer | ScriptedAnthropicServer;
  let t: TestApp;
  let w: Api;
  let world: BriefWorld;
  const clock = new FixedClock(NOW);
  const brief = () => `/projects/${world.project}/brief`;
  const answer = (value: unknown) => ({ type: 'json' as const, value, usage: { input: 500, output: 120 } });

  beforeAll(async () => {
    llm = await start();
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: provider, STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted' } });
    const owner = await signUp(t.url);
    w = api(t.url, (await createApiKey(t.url, owner.access_token)).key);
    world = await seedBriefWorld(w);
  }, 60_000);
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  const finished = (id: string) =>
    eventually(
      async () => {
        const r = await w.get(`/jobs/${id}`);
        return ['completed', 'failed', 'cancelled'].includes(r.body?.status) ? r.body : null;
      },
      { what: `job ${id} finished`, timeoutMs: 20_000, everyMs: 25 },
    );

  it('keeps only the items whose basis is admitted and whose quotes anchor byte for byte', async () => {
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const asked = llm.requests.length;
    llm.enqueue({
      ...answer({
        summary: 'Ablation is established; tile cracking is disputed.',
        items: [
          { kind: 'finding', text: 'The shield ablates on reentry.', basis_uids: [world.ablates], citations: [{ chunk_uid: world.chunkA, quote: 'The heat shield ablates at reentry' }, { chunk_uid: world.chunkB, quote: 'a paraphrase' }], confidence: 0.8 },
          { kind: 'tension', text: 'Cracking is disputed.', basis_uids: [world.cracks, world.never], citations: [{ chunk_uid: world.chunkB, quote: 'Engineers argue tiles never crack' }], confidence: null },
          { kind: 'finding', text: 'Paraphrased only.', basis_uids: [world.cracks], citations: [{ chunk_uid: world.chunkA, quote: 'tiles always crack' }], confidence: 0.5 },
          { kind: 'finding', text: 'Outside the Project.', basis_uids: [world.project], citations: [{ chunk_uid: world.chunkA, quote: 'Tiles crack' }], confidence: 0.5 },
          { kind: 'open_question', text: 'Not admitted chunk.', basis_uids: [world.question], citations: [{ chunk_uid: world.outsideChunk, quote: 'Gamma' }], confidence: null },
        ],
      }),
      hold,
    });
    const r = await w.post(`${brief()}/regenerate`, {});
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ reused: false, job_id: expect.any(String), status: 'pending' });
    // while the job waits on the model, the brief says so and a second regeneration is refused
    await eventually(async () => (llm.requests.length > asked ? true : null), { what: 'the model was asked', timeoutMs: 10_000, everyMs: 25 });
    expect((await w.get(brief())).body.regeneration).toMatchObject({ job_id: r.body.job_id, status: 'processing' });
    const busy = await w.post(`${brief()}/regenerate`, { mode: 'structural' });
    expectError(busy, 409, 'job_active');
    expect(busy.body.job_id).toBe(r.body.job_id);
    release();
    const job = await finished(r.body.job_id);
    expect(job).toMatchObject({ kind: 'brief_regenerate', status: 'completed', result: { project_uid: world.project, version: 1, reused: false, dropped_items: 3 } });
    const state = (await w.get(brief())).body;
    expect(state).toMatchObject({ status: 'current', current_version: 1, regeneration: null, last_error: null });
    const v = state.brief;
    expect(v).toMatchObject({ generated_by: 'llm', model: 'scripted', summary: 'Ablation is established; tile cracking is disputed.', trigger: 'regenerate' });
    expect(v.items.map((i: any) => [i.kind, i.text, i.origin])).toEqual([
      ['finding', 'The shield ablates on reentry.', 'llm'],
      ['tension', 'Cracking is disputed.', 'llm'],
    ]);
    const [finding, tension] = v.items;
    expect(finding.subject_uids).toEqual([world.ablates]);
    expect(finding.citations).toEqual([expect.objectContaining({ chunk_uid: world.chunkA, char_start: 0, char_end: 34, quote: 'The heat shield ablates at reentry' })]);
    expect(tension.subject_uids).toEqual([world.cracks, world.never].sort());
    const c = tension.citations[0];
    expect(Buffer.from(BETA).subarray(c.char_start, c.char_end).toString()).toBe('Engineers argue tiles never crack');
    // the prompt carried the candidates and their quotes; structured output was asked for; tokens metered
    const prompt = JSON.stringify(llm.requests[asked].body);
    expect(prompt).toContain(world.ablates);
    expect(prompt).toContain(JSON.stringify(ALPHA.slice(0, 34)).slice(1, -1));
    expect((await w.get('/v1/usage')).body.llm).toMatchObject({ calls: 1, input_tokens: 500, output_tokens: 120 });
    expect(JSON.stringify(job)).not.toContain(KEY);
    // unchanged sources and generator: reused without asking the model
    const again = await w.post(`${brief()}/regenerate`, { mode: 'llm' });
    expect([again.status, again.body.reused, again.body.version.version]).toEqual([200, true, 1]);
    expect(llm.requests.length).toBe(asked + 1);
  });

  it('a provider failure fails the job with upstream_error, sets last_error and appends nothing', async () => {
    llm.enqueue({ type: 'error', status: 400 });
    const r = await w.post(`${brief()}/regenerate`, { mode: 'llm', force: true });
    expect(r.status).toBe(202);
    const job = await finished(r.body.job_id);
    expect(job.status).toBe('failed');
    const state = (await w.get(brief())).body;
    expect(state).toMatchObject({ current_version: 1, regeneration: null, last_error: { code: 'upstream_error', at: NOW } });
    expect(state.last_error.message).not.toContain(KEY);
    expect((await w.get(`${brief()}/history`)).body.items).toHaveLength(1);
    // structural is still asked for explicitly, and clears last_error with its version
    const s = await w.post(`${brief()}/regenerate`, { mode: 'structural' });
    expect(s.status).toBe(201);
    expect((await w.get(brief())).body).toMatchObject({ current_version: 2, last_error: null });
  });
});
