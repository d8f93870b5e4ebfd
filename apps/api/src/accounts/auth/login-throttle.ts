import { AuthErrors } from '@strata/auth/auth-errors';

export interface LoginThrottleOptions {
  /** failures per e-mail within the window before sign-in is refused */
  perEmail: number;
  /** failures per client address within the window */
  perAddress: number;
  windowSeconds: number;
}

export const DEFAULT_LOGIN_THROTTLE: LoginThrottleOptions = { perEmail: 5, perAddress: 50, windowSeconds: 900 };
const MAX_TRACKED = 100_000;

/**
 * Throttles password guessing: after 5 failed sign-ins for an e-mail (or 50 from one address)
 * within 15 minutes, sign-in answers 429 `rate_limited` with `Retry-After` — before the
 * password is checked, and the same whether the account exists or not. A success clears the
 * e-mail's failures. In memory, bounded.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly opts: LoginThrottleOptions = DEFAULT_LOGIN_THROTTLE,
  ) {}

  /** throws 429 when either the e-mail or the address is over its budget */
  check(emailNorm: string, address: string): void {
    const now = this.now();
    const retry = Math.max(this.retryAfter(`e:${emailNorm}`, this.opts.perEmail, now), this.retryAfter(`a:${address}`, this.opts.perAddress, now));
    if (retry > 0) throw AuthErrors.rateLimited(Math.min(retry, this.opts.windowSeconds));
  }

  fail(emailNorm: string, address: string): void {
    const now = this.now();
    for (const k of [`e:${emailNorm}`, `a:${address}`]) {
      const list = this.recent(k, now);
      list.push(now);
      this.failures.delete(k);
      this.failures.set(k, list);
    }
    if (this.failures.size > MAX_TRACKED) {
      const drop = this.failures.size - MAX_TRACKED;
      let i = 0;
      for (const k of this.failures.keys()) {
        if (i++ >= drop) break;
        this.failures.delete(k);
      }
    }
  }

  succeed(emailNorm: string): void {
    this.failures.delete(`e:${emailNorm}`);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((t) => now - t < this.opts.windowSeconds);
  }

  private retryAfter(key: string, max: number, now: number): number {
    const list = this.recent(key, now);
    if (list.length < max) return 0;
    // allowed again once enough failures have left the window
    const oldestThatMustExpire = list[list.length - max];
    return Math.max(1, Math.ceil(oldestThatMustExpire + this.opts.windowSeconds - now));
  }
}
