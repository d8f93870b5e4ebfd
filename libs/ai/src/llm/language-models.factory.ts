import type { Clock } from '@strata/domain/time';
import { AnthropicChatModel } from './anthropic-chat-model';
import type { ChatModel, LanguageModels } from './chat-model.port';
import { ConcurrencyLimitedChatModel } from './concurrency-limited-chat-model';
import { OpenAIChatModel } from './openai-chat-model';
import type { Wait } from './transport/llm-transport';

/**
 * The STRATA_LLM_* settings, typed structurally: the platform's LlmConfig fits it, and this
 * lib does not import the platform (the platform imports it).
 */
export interface LanguageModelsOptions {
  provider: 'openai' | 'anthropic' | 'offline' | null;
  url: string;
  key: string | null;
  model: string | null;
  /** models a request may name (STRATA_LLM_MODELS); default: the model */
  models?: readonly string[];
  /** STRATA_LLM_MAX_TOKENS (default 4096) */
  maxTokens?: number;
  timeoutMs: number;
  concurrency: number;
}

export interface LanguageModelsDeps {
  clock: Clock;
  wait?: Wait;
  /** retry notices */
  log?: (line: string) => void;
}

/**
 * The configured language model: `openai` and `anthropic` give a chat model behind the
 * per-process concurrency limit; `offline` has none (callers take their structural path);
 * unset gives all nulls (routes that need a model answer 501 `llm_not_configured`).
 */
export function languageModelsFor(options: LanguageModelsOptions, deps: LanguageModelsDeps): LanguageModels {
  if (options.provider === null) return { provider: null, model: null, chat: null, models: [] };
  if (options.provider === 'offline') return { provider: 'offline', model: 'offline', chat: null, models: [] };
  if (!options.key) throw new Error(`STRATA_LLM_PROVIDER=${options.provider} needs STRATA_LLM_KEY`);
  if (!options.model) throw new Error(`STRATA_LLM_PROVIDER=${options.provider} needs STRATA_LLM_MODEL`);
  const models = options.models?.length ? options.models : [options.model];
  const adapterOptions = {
    url: options.url,
    apiKey: options.key,
    model: options.model,
    models,
    maxTokens: options.maxTokens,
    timeoutMs: options.timeoutMs,
    ...deps,
  };
  const adapter: ChatModel = options.provider === 'openai' ? new OpenAIChatModel(adapterOptions) : new AnthropicChatModel(adapterOptions);
  return { provider: options.provider, model: options.model, chat: new ConcurrencyLimitedChatModel(adapter, options.concurrency), models: [...models] };
}
