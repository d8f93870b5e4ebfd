import { EMAIL_RETRY_SECS, WEBHOOK_RETRY_DELAYS_SECS } from '@strata/domain/briefs';

/**
 * The waits before delivery retries, in clock seconds: a retry is due once the injected clock
 * passes them, so tests move a FixedClock rather than wait. Injectable for deployments that
 * want other waits.
 */
export interface RetryDelays {
  webhook: readonly number[];
  email: number;
}

export const BRIEFING_RETRY_DELAYS = Symbol('BRIEFING_RETRY_DELAYS');
export const DEFAULT_RETRY_DELAYS: RetryDelays = { webhook: WEBHOOK_RETRY_DELAYS_SECS, email: EMAIL_RETRY_SECS };
