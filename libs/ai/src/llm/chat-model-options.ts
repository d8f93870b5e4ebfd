import type { Clock } from '@strata/domain/time';
import type { ChatRequest, TokenUsage } from './chat-model.port';
import type { Wait } from './transport/llm-transport';

/** What both chat adapters are built from (STRATA_LLM_* and the service's clock). */
export interface ChatModelOptions {
  /** base URL: openai `<url>/chat/completions`, anthropic `<url>/v1/messages` */
  url: string;
  apiKey: string;
  /** the default model */
  model: string;
  /** other models a request may name (STRATA_LLM_MODELS); the default model is always allowed */
  models?: readonly string[];
  /** `max_tokens` when the request does not say (STRATA_LLM_MAX_TOKENS, default 4096) */
  maxTokens?: number;
  /** one call, retries included (STRATA_LLM_TIMEOUT_MS, default 60000) */
  timeoutMs?: number;
  clock: Clock;
  /** waits between retries; a test records them instead */
  wait?: Wait;
  /** retries after the first attempt (default 3) */
  maxRetries?: number;
  /** first back-off (default 1000 ms) */
  baseDelayMs?: number;
  /** retry notices (provider, status, delay: never the key or the prompt) */
  log?: (line: string) => void;
}

/** The model a request runs on: its own (one of `models`) or the default. */
export function modelFor(options: ChatModelOptions, requested: string | undefined): string {
  if (requested === undefined || requested === options.model) return options.model;
  if (options.models?.includes(requested)) return requested;
  throw new RangeError(`model '${requested}' is not one of the configured models (STRATA_LLM_MODELS)`);
}

/** A tool call's arguments as the port gives them: parsed JSON, or the raw text when it does not parse. */
export function parseArguments(raw: string): unknown {
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** JSON text of an `output` answer, parsed; undefined when it does not parse. */
export function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Token counts when the provider reported none (some OpenAI-compatible servers omit usage):
 * ⌈characters / 4⌉ of what was sent and received, so metering never counts such a call as free.
 */
export function estimatedUsage(req: ChatRequest, outputText: string): TokenUsage {
  const sent = (req.system ?? '').length + req.messages.reduce((n, m) => n + m.content.length, 0);
  return { inputTokens: Math.ceil(sent / 4), outputTokens: Math.ceil(outputText.length / 4) };
}
