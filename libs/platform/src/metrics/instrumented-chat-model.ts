import type { ChatModel, ChatRequest, ChatResponse, LanguageModels } from '@strata/ai';
import { StrataMetrics } from '@strata/observability';

/** The configured language model, counted for /metrics: calls by outcome, tokens, latency. */
export function instrumentLanguageModels(models: LanguageModels, metrics: StrataMetrics): LanguageModels {
  const chat = models.chat;
  if (!chat) return models;
  const counted: ChatModel = {
    provider: chat.provider,
    model: chat.model,
    async chat(req: ChatRequest): Promise<ChatResponse> {
      const t0 = performance.now(); // monotonic: a duration, not a time
      try {
        const res = await chat.chat(req);
        metrics.modelCalls.inc({ provider: chat.provider, outcome: 'ok' });
        metrics.modelTokens.inc({ provider: chat.provider, direction: 'input' }, res.usage.inputTokens);
        metrics.modelTokens.inc({ provider: chat.provider, direction: 'output' }, res.usage.outputTokens);
        return res;
      } catch (err) {
        metrics.modelCalls.inc({ provider: chat.provider, outcome: 'error' });
        throw err;
      } finally {
        metrics.modelDuration.observe({ provider: chat.provider }, (performance.now() - t0) / 1000);
      }
    },
  };
  return { ...models, chat: counted };
}
