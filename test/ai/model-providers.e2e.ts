import * as fs from 'node:fs';
import * as path from 'node:path';
import { LANGUAGE_MODELS, LanguageModels, MeteredLanguageModels, structuredCall } from '@strata/ai';
import { ScriptedAnthropicServer } from '@strata/ai/testing/scripted-anthropic-server';
import type { ScriptedChatServer } from '@strata/ai/testing/scripted-chat-server';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { FixedClock } from '@strata/domain/time';
import { api, request, signUpWithKey } from '../support/http';
import { startTestApp } from '../support/test-app';

const KEY = 'sk-e2e-MODEL-KEY-7c1f';
const PROMPT = 'the secret merger plan for Q3';

describe.each([
  ['openai', () => ScriptedOpenAIChatServer.start({ apiKey: KEY })],
  ['anthropic', () => ScriptedAnthropicServer.start({ apiKey: KEY })],
] as const)('STRATA_LLM_PROVIDER=%s against a scripted server', (provider, start) => {
  let llm: ScriptedChatServer & { baseUrl: string };
  beforeAll(async () => {
    llm = await start();
  });
  afterAll(() => llm.close());
  const env = () => ({ STRATA_LLM_PROVIDER: provider, STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: KEY, STRATA_LLM_MODEL: 'scripted', STRATA_LLM_MODELS: 'scripted,scripted-large' });

  it('/health names the provider and model; model calls made for an organization show in its GET /v1/usage, durably; no key or prompt is kept or logged', async () => {
    const clock = new FixedClock(1_700_000_000);
    const t = await startTestApp({ env: env(), clock, captureLogs: true });
    let restarted: Awaited<ReturnType<typeof startTestApp>> | undefined;
    try {
      const health = await request(t.url, 'GET', '/health');
      expect(health.status).toBe(200);
      expect(health.body.llm).toEqual({ provider, model: 'scripted' });
      expect(JSON.stringify(health.body)).not.toContain(KEY);
      expect(JSON.stringify(health.body)).not.toContain(llm.baseUrl);

      const a = await signUpWithKey(t.url);
      const b = await signUpWithKey(t.url);
      const before = await api(t.url, a.key).get('/v1/usage');
      expect(before.body.llm).toEqual({ calls: 0, input_tokens: 0, output_tokens: 0 });

      // the Nest-provided model, as a route or job working for organization `a` gets it
      const configured = t.app.get<LanguageModels>(LANGUAGE_MODELS);
      expect(configured).toMatchObject({ provider, model: 'scripted', models: ['scripted', 'scripted-large'] });
      const chat = t.app.get(MeteredLanguageModels).forOrganization(a.org_id)!;
      llm.enqueue(
        { type: 'text', text: 'Hello from the model', usage: { input: 120, output: 30 } },
        { type: 'json', value: { answer: 'wrong type' }, usage: { input: 200, output: 10 } },
        { type: 'json', value: { answer: 42 }, usage: { input: 250, output: 12 } },
      );
      const deltas: string[] = [];
      const res = await chat.chat({ system: 'be brief', messages: [{ role: 'user', content: PROMPT }], onTextDelta: (d) => deltas.push(d) });
      expect(res.text).toBe('Hello from the model');
      expect(deltas.join('')).toBe('Hello from the model');
      const structured = await structuredCall<{ answer: number }>(chat, {
        model: 'scripted-large',
        messages: [{ role: 'user', content: PROMPT }],
        output: { name: 'answer', schema: { type: 'object', required: ['answer'], properties: { answer: { type: 'integer' } } } },
      });
      expect(structured).toMatchObject({ value: { answer: 42 }, attempts: 2 });
      expect(llm.requests.slice(-3).map((r) => r.body.model)).toEqual(['scripted', 'scripted-large', 'scripted-large']);

      const used = { calls: 3, input_tokens: 570, output_tokens: 52 };
      expect((await api(t.url, a.key).get('/v1/usage')).body.llm).toEqual(used);
      expect((await api(t.url, b.key).get('/v1/usage')).body.llm).toEqual({ calls: 0, input_tokens: 0, output_tokens: 0 });

      // a failing call is an upstream error and meters nothing
      llm.enqueue({ type: 'error', status: 400, echoRequest: true });
      await expect(chat.chat({ messages: [{ role: 'user', content: PROMPT }] })).rejects.toMatchObject({ status: 502, code: 'upstream_error' });
      expect((await api(t.url, a.key).get('/v1/usage')).body.llm).toEqual(used);

      await t.close({ keepData: true });
      restarted = await startTestApp({ env: env(), clock, dataDir: t.dataDir });
      expect((await api(restarted.url, a.key).get('/v1/usage')).body.llm).toEqual(used);
      await restarted.close();

      const log = t.logs.join('\n');
      expect(log).toContain('listening on');
      for (const secret of [KEY, PROMPT]) expect(log).not.toContain(secret);
      const stored = fs
        .readdirSync(t.dataDir)
        .filter((f) => fs.statSync(path.join(t.dataDir, f)).isFile())
        .map((f) => fs.readFileSync(path.join(t.dataDir, f)).toString('latin1'))
        .join('');
      expect(stored).toContain('LlmUsageRecorded');
      for (const secret of [KEY, PROMPT, 'Hello from the model']) expect(stored).not.toContain(secret);
    } finally {
      await restarted?.close();
      await t.close();
      fs.rmSync(t.dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to start without a key or a model, naming the variable', async () => {
    await expect(startTestApp({ env: { STRATA_LLM_PROVIDER: provider } })).rejects.toThrow(`STRATA_LLM_PROVIDER=${provider} needs STRATA_LLM_KEY and STRATA_LLM_MODEL`);
    await expect(startTestApp({ env: { STRATA_LLM_PROVIDER: provider, STRATA_LLM_MODEL: 'm' } })).rejects.toThrow(`STRATA_LLM_PROVIDER=${provider} needs STRATA_LLM_KEY`);
    await expect(startTestApp({ env: { STRATA_LLM_PROVIDER: provider, STRATA_LLM_KEY: 'k' } })).rejects.toThrow(`STRATA_LLM_PROVIDER=${provider} needs STRATA_LLM_MODEL`);
    await expect(startTestApp({ env: { ...env(), STRATA_LLM_URL: 'not a url' } })).rejects.toThrow(/STRATA_LLM_URL must be a URL/);
  });
});

describe('without a chat model', () => {
  it.each([
    ['unset', {}, { provider: null, model: null }],
    ['offline', { STRATA_LLM_PROVIDER: 'offline' }, { provider: 'offline', model: 'offline' }],
  ])('%s: /health says so, there is no chat model to meter, and usage shows none', async (_what, env, llm) => {
    const t = await startTestApp({ env });
    try {
      expect((await request(t.url, 'GET', '/health')).body.llm).toEqual(llm);
      expect(t.app.get<LanguageModels>(LANGUAGE_MODELS).chat).toBeNull();
      const a = await signUpWithKey(t.url);
      expect(t.app.get(MeteredLanguageModels).forOrganization(a.org_id)).toBeNull();
      expect((await api(t.url, a.key).get('/v1/usage')).body.llm).toEqual({ calls: 0, input_tokens: 0, output_tokens: 0 });
    } finally {
      await t.close();
    }
  });
});
