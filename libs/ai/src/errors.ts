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
