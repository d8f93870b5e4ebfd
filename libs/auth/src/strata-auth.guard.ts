import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { DirectAuthenticator } from './direct-authenticator';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';
import { RouteAuth, isReadMethod } from './route-access';
import { routeMetadataOf } from './route-tags';

/**
 * The one global guard (APP_GUARD). For each route it reads the tag (`@Public`,
 * `@ApiKeyOrJwt` — also the default for an untagged route —, `@UserJwt`, `@OwnerAdminJwt`,
 * `@OwnerJwt`) and:
 *  - public: never 401 (any token is ignored); POSTs are rate limited per client address;
 *  - otherwise: needs `Authorization: Bearer <token>`, resolved by the CredentialResolver to
 *    an AuthContext (JWT or `strata_` API key), attached as `request.strata.auth`. Only that
 *    header is read: an `access_token` body or query field never authenticates. No passport
 *    strategy: it only split the header and called the same resolver, and its per-request
 *    strategy instance and callbacks cost more than the cached lookup itself;
 *  - JWT-only tags refuse API keys (403 api_key_not_allowed) and check the role;
 *  - read-only credentials may not call a non-GET route unless it is `@ReadsOnly` or
 *    `@AccessByAction` (403 read_only_credential);
 *  - then counts the request against the credential's per-minute limit.
 */
@Injectable()
export class StrataAuthGuard implements CanActivate {
  private readonly routes = new Map<Function, RouteAuth>();

  constructor(
    private readonly throttler: PlanThrottlerGuard,
    private readonly authenticator: DirectAuthenticator,
  ) {}

  /** A promise only where the rate-limit count must wait. */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.routeAuth(context);
    const req = context.switchToHttp().getRequest();
    if (route.tag === 'public') {
      if (!isReadMethod(req.method) && !this.throttler.tryCountSync(context)) return this.throttler.canActivate(context);
      return true;
    }

    this.authenticator.admit(req, route);
    if (!this.throttler.tryCountSync(context)) return this.throttler.canActivate(context);
    return true;
  }

  private routeAuth(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    let r = this.routes.get(handler);
    if (r === undefined) {
      r = routeMetadataOf(handler, context.getClass());
      this.routes.set(handler, r);
    }
    return r;
  }
}
