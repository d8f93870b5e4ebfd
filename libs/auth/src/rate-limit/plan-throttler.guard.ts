import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { InjectThrottlerOptions, InjectThrottlerStorage, ThrottlerGuard, ThrottlerModuleOptions, ThrottlerRequest, ThrottlerStorage } from '@nestjs/throttler';
import { CLOCK, Clock } from '@strata/domain/time';
import { StrataRequestState } from '../auth-context';
import { AuthErrors } from '../auth-errors';
import { PlanCatalogue } from '../plans/plan-catalogue';
import { FixedWindowThrottlerStorage } from './fixed-window.storage';

export const RATE_WINDOW_MS = 60_000;

function stateOf(req: Record<string, any>): StrataRequestState | undefined {
  return req.strata as StrataRequestState | undefined;
}

/** The credential a request is counted against: key, user, or (public routes) client address. */
export function rateTracker(req: Record<string, any>): string {
  const auth = stateOf(req)?.auth;
  if (auth?.api_key_id) return `key:${auth.api_key_id}`;
  if (auth?.user_id) return `user:${auth.user_id}`;
  return `ip:${req.ip ?? 'unknown'}`;
}

/**
 * @nestjs/throttler options: one 60-second window per credential (not per route), whose limit
 * is the plan's `requests_per_minute` unless STRATA_RATE_LIMIT_PER_MINUTE overrides it.
 */
export function planThrottlerOptions(catalogue: PlanCatalogue, override: number | null, clock: Clock): ThrottlerModuleOptions {
  return {
    storage: new FixedWindowThrottlerStorage(clock),
    getTracker: rateTracker,
    generateKey: (_ctx: ExecutionContext, tracker: string) => tracker,
    throttlers: [
      {
        name: 'default',
        ttl: RATE_WINDOW_MS,
        limit: (ctx: ExecutionContext) => {
          if (override !== null) return override;
          const auth = stateOf(ctx.switchToHttp().getRequest())?.auth;
          return catalogue.get(auth?.plan ?? 'free').limits.requests_per_minute;
        },
      },
    ],
  };
}

/**
 * The throttler guard with Strata's wire form (REFERENCE §1.12): `X-RateLimit-Limit`,
 * `-Remaining`, `-Reset` (Unix seconds) on every counted response; over the limit a 429
 * `rate_limited` with `Retry-After`. Not global on its own: the auth guard calls it after the
 * credential is known, so counting is per credential.
 *
 * It is the @nestjs/throttler guard (options, storage and `handleRequest` as the library
 * defines them) with one change: `canActivate` skips the generic per-route decorator lookups
 * (`@Throttle`/`@SkipThrottle`, ten reflector reads and several awaits — about 19 µs per
 * request, measured), since Strata limits per credential, not per route. With the
 * fixed-window storage the whole check is a map lookup.
 */
@Injectable()
export class PlanThrottlerGuard extends ThrottlerGuard {
  constructor(
    @InjectThrottlerOptions() options: ThrottlerModuleOptions,
    @InjectThrottlerStorage() storage: ThrottlerStorage,
    reflector: Reflector,
    /** the reset time of the window is a time on the service's clock */
    @Inject(CLOCK) private readonly clock: Clock,
  ) {
    super(options, storage, reflector);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.tryCountSync(context)) return true;
    const throttler = this.throttlers[0];
    const req = context.switchToHttp().getRequest();
    const limit = typeof throttler.limit === 'function' ? await throttler.limit(context) : throttler.limit;
    const ttl = typeof throttler.ttl === 'function' ? await throttler.ttl(context) : throttler.ttl;
    const storage = this.storageService;
    if (storage instanceof FixedWindowThrottlerStorage) {
      this.answer(context, limit, storage.hit(rateTracker(req), ttl, limit));
      return true;
    }
    return this.handleRequest({
      context,
      limit,
      ttl,
      throttler,
      blockDuration: ttl,
      getTracker: this.commonOptions.getTracker!,
      generateKey: this.commonOptions.generateKey!,
    });
  }

  /**
   * The same count as `canActivate`, without a promise, when it can be done at once: the
   * fixed-window storage and a limit and window known without waiting (Strata's options).
   * False when it counted nothing: then `canActivate` counts. Every authenticated request
   * comes through here; the awaits of `canActivate` cost more than the count itself.
   */
  tryCountSync(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest();
    // the agent runtime's own tool calls are not HTTP traffic (REFERENCE §16.4)
    if (stateOf(req)?.auth?.delegated) return true;
    const storage = this.storageService;
    if (!(storage instanceof FixedWindowThrottlerStorage)) return false;
    const throttler = this.throttlers[0];
    const limit = typeof throttler.limit === 'function' ? throttler.limit(context) : throttler.limit;
    const ttl = typeof throttler.ttl === 'function' ? throttler.ttl(context) : throttler.ttl;
    if (typeof limit !== 'number' || typeof ttl !== 'number') return false;
    this.answer(context, limit, storage.hit(rateTracker(req), ttl, limit));
    return true;
  }

  protected override async handleRequest(r: ThrottlerRequest): Promise<boolean> {
    const tracker = await r.getTracker(r.context.switchToHttp().getRequest(), r.context);
    const key = r.generateKey(r.context, tracker, r.throttler.name ?? 'default');
    this.answer(r.context, r.limit, await this.storageService.increment(key, r.ttl, r.limit, r.blockDuration, r.throttler.name ?? 'default'));
    return true;
  }

  private answer(context: ExecutionContext, limit: number, rec: { totalHits: number; timeToExpire: number; isBlocked: boolean; timeToBlockExpire: number }): void {
    const res = context.switchToHttp().getResponse();
    res.header('X-RateLimit-Limit', String(limit));
    res.header('X-RateLimit-Remaining', String(Math.max(0, limit - rec.totalHits)));
    res.header('X-RateLimit-Reset', String(Math.ceil(this.clock.now()) + rec.timeToExpire));
    if (rec.isBlocked) throw AuthErrors.rateLimited(Math.min(60, Math.max(1, rec.timeToBlockExpire)));
  }
}
