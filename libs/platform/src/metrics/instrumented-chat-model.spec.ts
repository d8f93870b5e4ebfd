import type { ChatModel, ChatRequest } from '@strata/ai';
import { StrataMetrics } from '@strata/observability';
import { instrumentLanguageModels } from './instrumented-chat-model';

describe('instrumentLanguageModels', () => {
  it('counts calls by purpose and outcome, tokens by direction and their duration, and passes answers and errors through', async () => {
    let fail = false;
    const chat: ChatModel = {
      provider: 'openai',
      model: 'm',
      chat: async (_req: ChatRequest) => {
        if (fail) throw new Error('upstream');
        return { text: 'hi', toolCalls: [], stopReason: 'end', usage: { inputTokens: 12, outputTokens: 5 } };
      },
    };
    const metrics = new StrataMetrics({ processMetrics: false });
    const models = instrumentLanguageModels({ provider: 'openai', model: 'm', chat }, metrics);
    expect((await models.chat!.chat({ messages: [{ role: 'user', content: 'x' }] })).text).toBe('hi');
    await models.chat!.chat({ messages: [{ role: 'user', content: 'x' }], purpose: 'synthesis' });
    fail = true;
    await expect(models.chat!.chat({ messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow('upstream');
    const text = (await metrics.render()).body;
    expect(text).toContain('strata_model_calls_total{provider="openai",purpose="other",outcome="ok"} 1');
    expect(text).toContain('strata_model_calls_total{provider="openai",purpose="synthesis",outcome="ok"} 1');
    expect(text).toContain('strata_model_calls_total{provider="openai",purpose="other",outcome="error"} 1');
    expect(text).toContain('strata_model_tokens_total{provider="openai",purpose="other",direction="input"} 12');
    expect(text).toContain('strata_model_tokens_total{provider="openai",purpose="synthesis",direction="output"} 5');
    expect(text).toContain('strata_model_call_duration_seconds_count{provider="openai",purpose="other"} 2');
  });

  it('leaves the offline provider (no chat model) as it is', () => {
    const models = { provider: 'offline' as const, model: 'offline', chat: null };
    expect(instrumentLanguageModels(models, new StrataMetrics({ processMetrics: false }))).toBe(models);
  });
});
