import type { Clock } from '@strata/domain/time';
import { UpstreamError } from '../../errors';
import { HttpPost, LlmResponse, nodeHttpPost } from './http-post';
import { JsonText } from './json-body';

/**
 * Waits `ms` between retries, or rejects as soon as `signal` aborts. Injected so tests assert
 * the delays asked for instead of sitting them out.
 */
export type Wait = (ms: number, signal: AbortSignal) => Promise<void>;

export const timerWait: Wait = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export interface LlmTransportOptions {
  /** named in every error and log line */
  provider: 'openai' | 'anthropic';
  /** a Retry-After given as an HTTP date is read against this clock */
  clock: Clock;
  /** the whole call, retries and waits included */
  timeoutMs: number;
  /** default: a timer */
  wait?: Wait;
  /** retries after the first attempt on 429, 5xx and connection errors (default 3) */
  maxRetries?: number;
  /** first back-off, doubled per retry (default 1000 ms); a longer Retry-After wins */
  baseDelayMs?: number;
  /** cap on one wait, Retry-After included (default 60 s) */
  maxDelayMs?: number;
  /** default: node:http(s) with kept-alive connections */
  post?: HttpPost;
  /** one line per retry; never holds the key, the prompt or the provider's body */
  log?: (line: string) => void;
}

export interface LlmHttpRequest {
  url: string;
  headers: Record<string, string>;
  /** sent as JSON; a JsonText is sent as it is */
  body: unknown;
  /** the caller's cancellation: aborts at once, whatever the attempt is doing */
  signal?: AbortSignal;
}

/** What a reader reports so a failure mid-body is only retried when nothing reached the caller yet. */
export interface ReadProgress {
  delivered: boolean;
}

/** An error thrown by the caller's own callback (onTextDelta): passed through untouched, never retried. */
class CallerFault {
  constructor(readonly error: unknown) {}
}

/** Hands streamed text to the caller, marking the attempt as no longer retryable. */
export function deliver(progress: ReadProgress, onTextDelta: ((text: string) => void) | undefined, text: string): void {
  if (!onTextDelta || !text) return;
  progress.delivered = true;
  try {
    onTextDelta(text);
  } catch (err) {
    throw new CallerFault(err);
  }
}

/** A transient failure of one attempt: retried while attempts remain. */
class Transient {
  constructor(
    readonly reason: string,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {}
}

const TIMEOUT = Symbol('timeout');

/**
 * The HTTP side every chat adapter shares: one JSON POST, retried on 429, 5xx and connection
 * errors with exponential back-off honouring Retry-After, under one deadline for the whole
 * call, cancelled at once by the caller's signal. Whatever still fails is an UpstreamError
 * naming the provider, the status and a short reason of our own: the provider's body can
 * echo the key or the prompt, so not a byte of it is repeated.
 */
export class LlmTransport {
  readonly provider: 'openai' | 'anthropic';
  private readonly wait: Wait;
  private readonly maxRetries: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly httpPost: HttpPost;

  constructor(private readonly options: LlmTransportOptions) {
    this.provider = options.provider;
    this.wait = options.wait ?? timerWait;
    this.maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 3));
    this.baseDelayMs = options.baseDelayMs ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.httpPost = options.post ?? nodeHttpPost;
  }

  /**
   * POSTs `req.body` as JSON and hands a 2xx response to `read`. `read` throws UpstreamError
   * for an answer that is wrong (not retried); any other error while reading is a broken
   * connection, retried unless `progress.delivered` says the caller already saw part of it.
   */
  async post<T>(req: LlmHttpRequest, read: (res: LlmResponse, progress: ReadProgress) => Promise<T>): Promise<T> {
    const caller = req.signal;
    if (caller?.aborted) throw caller.reason;
    // one signal for the attempts, aborted by the deadline or the caller (a listener, not
    // AbortSignal.any: that makes a signal of its own and tracks both, at every call)
    const call = new AbortController();
    const timer = setTimeout(() => call.abort(TIMEOUT), this.options.timeoutMs);
    const onCaller = () => call.abort(caller!.reason);
    caller?.addEventListener('abort', onCaller, { once: true });
    const signal = call.signal;
    const body = req.body instanceof JsonText ? req.body.text : JSON.stringify(req.body);
    try {
      for (let attempt = 0; ; attempt++) {
        const outcome = await this.attempt(req, body, signal, read);
        if (!(outcome instanceof Transient)) return outcome.value;
        if (attempt >= this.maxRetries) {
          throw new UpstreamError(
            `${this.provider} failed after ${attempt + 1} attempts: ${outcome.reason}`,
            this.provider,
            outcome.status,
          );
        }
        const backoff = this.baseDelayMs * 2 ** attempt;
        const delay = Math.min(this.maxDelayMs, Math.max(backoff, outcome.retryAfterMs ?? 0));
        this.options.log?.(`${this.provider}: ${outcome.reason}; retry ${attempt + 1} of ${this.maxRetries} in ${delay} ms`);
        await this.wait(delay, signal);
      }
    } catch (err) {
      if (err instanceof CallerFault) throw err.error;
      throw this.settle(err, caller, signal);
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', onCaller);
    }
  }

  /** Turns what an abort threw into the caller's own reason or the timeout's UpstreamError. */
  private settle(err: unknown, caller: AbortSignal | undefined, signal: AbortSignal): unknown {
    if (caller?.aborted) return caller.reason;
    if (signal.aborted && signal.reason === TIMEOUT) return new UpstreamError(`${this.provider} did not answer within ${this.options.timeoutMs} ms`, this.provider);
    return err;
  }

  private async attempt<T>(
    req: LlmHttpRequest,
    body: string,
    signal: AbortSignal,
    read: (res: LlmResponse, progress: ReadProgress) => Promise<T>,
  ): Promise<{ value: T } | Transient> {
    let res: LlmResponse;
    try {
      res = await this.httpPost(req.url, { 'content-type': 'application/json', ...req.headers }, body, signal);
    } catch (err) {
      if (signal.aborted) throw err;
      return new Transient(`connection failed (${connectionCode(err)})`);
    }
    const status = res.status;
    if (status === 429 || status >= 500) {
      res.discard();
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'), this.options.clock.now() * 1000);
      return new Transient(status === 429 ? 'HTTP 429 rate limited' : `HTTP ${status} server error`, status, retryAfterMs);
    }
    if (status < 200 || status >= 300) {
      const kind = await errorKind(res);
      throw new UpstreamError(`${this.provider} answered HTTP ${status}: ${REASONS[status] ?? 'request refused'}${kind ? ` (${kind})` : ''}`, this.provider, status);
    }
    const progress: ReadProgress = { delivered: false };
    try {
      return { value: await read(res, progress) };
    } catch (err) {
      if (err instanceof UpstreamError || err instanceof CallerFault || signal.aborted) throw err;
      if (progress.delivered) throw new UpstreamError(`${this.provider} broke off its answer (${connectionCode(err)})`, this.provider, status);
      return new Transient(`answer broke off (${connectionCode(err)})`, status);
    }
  }
}

const REASONS: Record<number, string> = {
  400: 'request rejected',
  401: 'authentication failed (check STRATA_LLM_KEY)',
  403: 'access denied',
  404: 'not found (check STRATA_LLM_URL and STRATA_LLM_MODEL)',
  413: 'request too large',
  422: 'request rejected',
};

/**
 * The provider's error type, when it is a bare identifier (`invalid_request_error`,
 * `not_found_error`): safe to repeat, unlike its message, which may quote the key or the prompt.
 */
async function errorKind(res: LlmResponse): Promise<string | null> {
  let text: string;
  try {
    text = await res.text();
  } catch {
    return null;
  }
  try {
    const body = JSON.parse(text) as { error?: { type?: unknown; code?: unknown } };
    for (const v of [body?.error?.type, body?.error?.code]) if (typeof v === 'string' && /^[a-z_]{1,64}$/.test(v)) return v;
  } catch {
    /* not JSON */
  }
  return null;
}

/** A network error's code (ECONNREFUSED, ECONNRESET, UND_ERR_SOCKET…), never its message (which can hold the URL). */
function connectionCode(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]{2,40}$/.test(code)) return code;
  }
  return 'network error';
}

/** Retry-After as seconds or an HTTP date (read against `nowMs`, the injected clock), in ms. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const at = Date.parse(trimmed);
  return Number.isFinite(at) ? Math.max(0, at - nowMs) : undefined;
}
