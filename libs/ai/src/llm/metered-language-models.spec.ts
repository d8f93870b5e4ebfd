import { FixedClock } from '@strata/domain/time';
import { UpstreamError } from '../errors';
import { ScriptedOpenAIChatServer } from '../testing/scripted-openai-chat-server';
import { languageModelsFor } from './language-models.factory';
import { LlmUsageAttribution, LlmUsageEntry, LlmUsageRecorder, MeteredLanguageModels, usageEntryOf } from './metered-language-models';

class RecordingRecorder implements LlmUsageRecorder {
  readonly records: { org: string; entry: LlmUsageEntry; who?: LlmUsageAttribution }[] = [];
  fail = false;
  async record(org: string, entry: LlmUsageEntry, who?: LlmUsageAttribution) {
    if (this.fail) throw new Error('store closed');
    this.records.push({ org, entry, ...(who ? { who } : {}) });
  }
}

describe('MeteredLanguageModels', () => {
  let server: ScriptedOpenAIChatServer;
  let recorder: RecordingRecorder;
  let metered: MeteredLanguageModels;
  beforeEach(async () => {
    server = await ScriptedOpenAIChatServer.start();
    recorder = new RecordingRecorder();
    const models = languageModelsFor(
      { provider: 'openai', url: server.baseUrl, key: 'k', model: 'main', models: ['main', 'alt'], timeoutMs: 5000, concurrency: 2 },
      { clock: new FixedClock(), wait: async () => undefined },
    );
    metered = new MeteredLanguageModels(models, recorder);
  });
  afterEach(() => server.close());

  it('records every successful call to the organization before returning it', async () => {
    expect(metered).toMatchObject({ provider: 'openai', model: 'main', models: ['main', 'alt'] });
    const chat = metered.forOrganization('org-1', { requestId: 'req-9' })!;
    expect(chat.provider).toBe('openai');
    server.enqueue({ type: 'text', text: 'a', usage: { input: 11, output: 3 } }, { type: 'text', text: 'b', usage: { input: 2, output: 5 } });
    await chat.chat({ messages: [{ role: 'user', content: 'x' }] });
    await chat.chat({ model: 'alt', messages: [{ role: 'user', content: 'y' }] });
    expect(recorder.records).toEqual([
      { org: 'org-1', entry: { provider: 'openai', model: 'main', inputTokens: 11, outputTokens: 3 }, who: { requestId: 'req-9' } },
      { org: 'org-1', entry: { provider: 'openai', model: 'alt', inputTokens: 2, outputTokens: 5 }, who: { requestId: 'req-9' } },
    ]);
  });

  it('records nothing for a failed call, and a failed record fails the call', async () => {
    const chat = metered.forOrganization('org-1')!;
    server.enqueue({ type: 'error', status: 401 });
    await expect(chat.chat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toBeInstanceOf(UpstreamError);
    expect(recorder.records).toEqual([]);
    recorder.fail = true;
    await expect(chat.chat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow('store closed');
  });

  it('records nothing itself for a caller that records its calls, which usageEntryOf describes as it would have', async () => {
    const chat = metered.forOrganization('org-1', { requestId: 'req-9' }, { recordedByCaller: true })!;
    server.enqueue({ type: 'text', text: 'a', usage: { input: 11, output: 3 } });
    const req = { model: 'alt', messages: [{ role: 'user' as const, content: 'x' }] };
    const res = await chat.chat(req);
    expect(recorder.records).toEqual([]);
    expect(usageEntryOf(chat, req, res)).toEqual({ provider: 'openai', model: 'alt', inputTokens: 11, outputTokens: 3 });
    expect(usageEntryOf(chat, {}, res).model).toBe('main');
  });

  it('has no chat model for offline or no provider', () => {
    const offline = new MeteredLanguageModels(languageModelsFor({ provider: 'offline', url: '', key: null, model: 'offline', timeoutMs: 1, concurrency: 1 }, { clock: new FixedClock() }), recorder);
    expect(offline.forOrganization('o')).toBeNull();
    expect(offline.provider).toBe('offline');
  });
});
