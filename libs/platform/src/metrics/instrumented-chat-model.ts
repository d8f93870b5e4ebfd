import type { ChatModel, ChatRequest, ChatResponse, LanguageModels } from '@strata/ai';
import { StrataMetrics } from '@strata/observability';
import { tracing } from '@strata/observability/tracing';

/** The configured language model, counted for /metrics by provider and purpose: calls by outcome, tokens, latency. */
export function instrumentLanguageModels(models: LanguageModels, metrics: StrataMetrics): LanguageModels {
  const chat = models.chat;
  if (!chat) return models;
  const call = async (req: ChatRequest): Promise<ChatResponse> => {
    const t0 = performance.now(); // monotonic: a duration, not a time
    const provider = chat.provider;
    const purpose = req.purpose ?? 'other';
    try {
      const res = await chat.chat(req);
      metrics.modelCalls.inc({ provider, purpose, outcome: 'ok' });
      metrics.modelTokens.inc({ provider, purpose, direction: 'input' }, res.usage.inputTokens);
      metrics.modelTokens.inc({ provider, purpose, direction: 'output' }, res.usage.outputTokens);
      return res;
    } catch (err) {
      metrics.modelCalls.inc({ provider, purpose, outcome: 'error' });
      throw err;
    } finally {
      metrics.modelDuration.observe({ provider, purpose }, (performance.now() - t0) / 1000);
    }
  };
  const counted: ChatModel = {
    provider: chat.provider,
    model: chat.model,
    chat: (req) => tracing.inSpan('strata.model_call', { 'strata.provider': chat.provider, 'strata.purpose': req.purpose ?? 'other' }, () => call(req)),
  };
  return { ...models, chat: counted };
}
