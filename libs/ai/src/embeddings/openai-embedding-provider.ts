import type { EmbeddingProvider } from '../embedding-provider.port';
import { UpstreamError } from '../errors';
import type { Clock } from '@strata/domain/time';

export interface OpenAIEmbeddingProviderOptions {
  /** e.g. https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama) */
  baseUrl: string;
  /** sent as `Authorization: Bearer …` when set */
  apiKey?: string;
  model: string;
  /** the length every returned vector must have */
  dimensions: number;
  /**
   * Send `dimensions` in the request (text-embedding-3-* can shorten vectors; older models
   * and some servers reject the field). Default true.
   */
  sendDimensions?: boolean;
  /** inputs per request (default 96) */
  batchSize?: number;
  /** per attempt, including reading the body (default 30 s) */
  timeoutMs?: number;
  /** retries after the first attempt on 429, 5xx, timeouts and network errors (default 3) */
  maxRetries?: number;
  /** first backoff; doubles per retry, with jitter; Retry-After wins when longer (default 500 ms) */
  retryBaseMs?: number;
  /** cap on any single wait, Retry-After included (default 20 s) */
  maxRetryDelayMs?: number;
  /** reported as `provider` (default 'openai') */
  providerName?: string;
  /** extra request headers (e.g. OpenAI-Organization) */
  headers?: Record<string, string>;
  /** the service's clock: a Retry-After given as an HTTP date is a time on it */
  clock: Clock;
  /** waits between retries (default: a timer); a test records the waits instead of sitting them out */
  wait?: (ms: number) => Promise<void>;
}

interface EmbeddingsResponse {
  data?: Array<{ index?: unknown; embedding?: unknown }>;
}

class RetryableFailure extends Error {
  constructor(
    message: string,
    readonly upstreamStatus?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * Embeddings from any OpenAI-compatible `POST {baseUrl}/embeddings` (OpenAI, Azure-style
 * gateways, Ollama, vLLM, TEI…). Inputs are sent in batches, results are put back in input
 * order by their `index`, and every vector is checked against `dimensions`. Any failure
 * after retries is an UpstreamError (502 `upstream_error`).
 */
export class OpenAIEmbeddingProvider implements EmbeddingProvider {
  readonly provider: string;
  readonly model: string;
  readonly dimensions: number;
  readonly lexical = false;

  private readonly url: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly retryBaseMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(private readonly options: OpenAIEmbeddingProviderOptions) {
    if (!options.baseUrl) throw new Error('OpenAIEmbeddingProvider needs a baseUrl');
    if (!options.model) throw new Error('OpenAIEmbeddingProvider needs a model');
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1 || options.dimensions > 8192) {
      throw new RangeError('dimensions must be an integer from 1 to 8192');
    }
    this.provider = options.providerName ?? 'openai';
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.batchSize = Math.max(1, Math.floor(options.batchSize ?? 96));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 3));
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 20_000;
  }

  async embed(texts: string[]): Promise<number[][]> {
    const out: number[][] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      out.push(...(await this.embedBatch(texts.slice(i, i + this.batchSize))));
    }
    return out;
  }

  private async embedBatch(inputs: string[]): Promise<number[][]> {
    const body = JSON.stringify({
      model: this.model,
      input: inputs,
      encoding_format: 'float',
      ...(this.options.sendDimensions === false ? {} : { dimensions: this.dimensions }),
    });
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.attempt(body, inputs.length);
      } catch (err) {
        if (!(err instanceof RetryableFailure)) throw err;
        if (attempt >= this.maxRetries) {
          throw new UpstreamError(
            `embedding provider failed after ${attempt + 1} attempts: ${err.message}`,
            this.provider,
            err.upstreamStatus,
          );
        }
        const backoff = this.retryBaseMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
        await (this.options.wait ?? sleep)(Math.min(this.maxRetryDelayMs, Math.max(backoff, err.retryAfterMs ?? 0)));
      }
    }
  }

  /** One HTTP call. Throws RetryableFailure for transient trouble, UpstreamError otherwise. */
  private async attempt(body: string, expected: number): Promise<number[][]> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    let status: number | undefined;
    let text: string;
    let retryAfterMs: number | undefined;
    try {
      const res = await fetch(this.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          ...(this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {}),
          ...this.options.headers,
        },
        body,
        signal: controller.signal,
      });
      status = res.status;
      retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.options.clock.now() * 1000);
      text = await res.text();
    } catch (err) {
      if (controller.signal.aborted) throw new RetryableFailure(`timed out after ${this.timeoutMs} ms`, status);
      throw new RetryableFailure(`request failed: ${(err as Error)?.message ?? String(err)}`, status);
    } finally {
      clearTimeout(timer);
    }

    if (status === 429 || status >= 500) {
      throw new RetryableFailure(`HTTP ${status}${upstreamMessage(text)}`, status, retryAfterMs);
    }
    if (status < 200 || status >= 300) {
      throw new UpstreamError(`embedding provider answered HTTP ${status}${upstreamMessage(text)}`, this.provider, status);
    }
    let parsed: EmbeddingsResponse;
    try {
      parsed = JSON.parse(text) as EmbeddingsResponse;
    } catch {
      throw new UpstreamError('embedding provider returned invalid JSON', this.provider, status);
    }
    return this.readVectors(parsed, expected, status);
  }

  private readVectors(parsed: EmbeddingsResponse, expected: number, status: number): number[][] {
    const fail = (msg: string) => new UpstreamError(`embedding provider returned ${msg}`, this.provider, status);
    if (!parsed || !Array.isArray(parsed.data)) throw fail('no data array');
    if (parsed.data.length !== expected) throw fail(`${parsed.data.length} embeddings for ${expected} inputs`);
    const out: number[][] = new Array(expected);
    parsed.data.forEach((item, position) => {
      // `index` says which input this is; absent, trust the order
      const index = item?.index ?? position;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= expected || out[index]) {
        throw fail(`an invalid or repeated index (${String(index)})`);
      }
      const vector = item.embedding;
      if (!Array.isArray(vector)) throw fail('an embedding that is not an array (base64 is not supported)');
      if (vector.length !== this.dimensions) {
        throw fail(`${vector.length}-dimensional embeddings, expected ${this.dimensions} (model ${this.model})`);
      }
      for (const x of vector) if (typeof x !== 'number' || !Number.isFinite(x)) throw fail('a non-numeric embedding value');
      out[index] = vector as number[];
    });
    return out;
  }
}

/** " — <message>" from an OpenAI-style error body, if any (trimmed, never the request). */
function upstreamMessage(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const msg = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (typeof msg === 'string' && msg) return `: ${msg.slice(0, 300)}`;
  } catch {
    /* not JSON */
  }
  return '';
}

/** Retry-After as seconds or an HTTP date (against `nowMs`), in ms. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(value);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
