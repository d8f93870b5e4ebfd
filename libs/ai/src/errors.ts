import { DomainError } from '@strata/domain/errors';

/**
 * The model provider failed during a synchronous call (REFERENCE §1.12): HTTP 502
 * `upstream_error`, nothing was written. A DomainError, so the HTTP layer renders it like any
 * other `{error, code}` body. The message never contains credentials.
 */
export class UpstreamError extends DomainError {
  constructor(
    message: string,
    /** which provider failed (e.g. 'openai') */
    readonly provider: string,
    /** the upstream HTTP status, when there was one */
    readonly upstreamStatus?: number,
  ) {
    super(502, 'upstream_error', message, { provider, ...(upstreamStatus !== undefined ? { upstream_status: upstreamStatus } : {}) });
    this.name = 'UpstreamError';
  }
}

/** A route that needs a language model was called with STRATA_LLM_PROVIDER unset (REFERENCE §9.6). */
export class LlmNotConfiguredError extends DomainError {
  constructor(what = 'this route') {
    super(501, 'llm_not_configured', `${what} needs a language model: set STRATA_LLM_PROVIDER (openai, anthropic or offline)`);
    this.name = 'LlmNotConfiguredError';
  }
}
