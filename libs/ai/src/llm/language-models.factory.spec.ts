import { FixedClock } from '@strata/domain/time';
import { ScriptedAnthropicServer } from '../testing/scripted-anthropic-server';
import { ScriptedOpenAIChatServer } from '../testing/scripted-openai-chat-server';
import { ConcurrencyLimitedChatModel } from './concurrency-limited-chat-model';
import { LanguageModelsOptions, languageModelsFor } from './language-models.factory';

const base: LanguageModelsOptions = { provider: null, url: '', key: null, model: null, timeoutMs: 60000, concurrency: 4 };
const deps = { clock: new FixedClock() };

describe('languageModelsFor', () => {
  it('unset: all null; offline: no chat model', () => {
    expect(languageModelsFor(base, deps)).toEqual({ provider: null, model: null, chat: null, models: [] });
    expect(languageModelsFor({ ...base, provider: 'offline', model: 'offline' }, deps)).toEqual({ provider: 'offline', model: 'offline', chat: null, models: [] });
  });

  it('refuses openai or anthropic without a key or a model', () => {
    expect(() => languageModelsFor({ ...base, provider: 'openai', model: 'm' }, deps)).toThrow(/STRATA_LLM_KEY/);
    expect(() => languageModelsFor({ ...base, provider: 'anthropic', key: 'k' }, deps)).toThrow(/STRATA_LLM_MODEL/);
  });

  it.each([
    ['openai', () => ScriptedOpenAIChatServer.start({ apiKey: 'k' })],
    ['anthropic', () => ScriptedAnthropicServer.start({ apiKey: 'k' })],
  ] as const)('%s: a concurrency-limited chat model on the configured URL, key, model, models and max tokens', async (provider, start) => {
    const server = await start();
    try {
      const lm = languageModelsFor({ ...base, provider, url: server.baseUrl, key: 'k', model: 'main', models: ['main', 'other'], maxTokens: 77, concurrency: 3 }, deps);
      expect(lm).toMatchObject({ provider, model: 'main', models: ['main', 'other'] });
      expect(lm.chat).toBeInstanceOf(ConcurrencyLimitedChatModel);
      expect((lm.chat as ConcurrencyLimitedChatModel).limit).toBe(3);
      expect(lm.chat!.provider).toBe(provider);
      server.enqueue({ type: 'text', text: 'hi' });
      expect((await lm.chat!.chat({ model: 'other', messages: [{ role: 'user', content: 'x' }] })).text).toBe('hi');
      expect(server.requests[0].body).toMatchObject({ model: 'other', max_tokens: 77 });
    } finally {
      await server.close();
    }
  });
});
