import { ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import { AuthContext, StrataRequestState } from './auth-context';
import { AuthErrors } from './auth-errors';
import { BearerRequest, STRATA_BEARER } from './bearer.strategy';
import { CredentialResolver } from './credential-resolver';
import { ACCESS_KIND, AUTH_TAG, AccessKind, AuthTag } from './route-tags';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';

interface RouteAuth {
  tag: AuthTag;
  access: AccessKind | undefined;
}

const BEARER_RE = /^Bearer +(\S+) *$/i;
const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const JWT_ONLY = new Set<AuthTag>(['user_jwt', 'owner_admin_jwt', 'owner_jwt']);

/**
 * The one global guard (APP_GUARD). For each route it reads the tag (`@Public`,
 * `@ApiKeyOrJwt` — also the default for an untagged route —, `@UserJwt`, `@OwnerAdminJwt`,
 * `@OwnerJwt`) and:
 *  - public: never 401 (any token is ignored); POSTs are rate limited per client address;
 *  - otherwise: needs `Authorization: Bearer <token>`, resolved by the passport bearer
 *    strategy to an AuthContext (JWT or `strata_` API key), attached as `request.strata.auth`;
 *  - JWT-only tags refuse API keys (403 api_key_not_allowed) and check the role;
 *  - read-only credentials may not call a non-GET route unless it is `@ReadsOnly` or
 *    `@AccessByAction` (403 read_only_credential);
 *  - then counts the request against the credential's per-minute limit.
 */
@Injectable()
export class StrataAuthGuard extends AuthGuard(STRATA_BEARER) {
  private readonly routes = new Map<Function, RouteAuth>();

  constructor(
    private readonly reflector: Reflector,
    private readonly throttler: PlanThrottlerGuard,
    private readonly resolver: CredentialResolver,
  ) {
    super({ session: false });
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const route = this.routeAuth(context);
    const req = context.switchToHttp().getRequest();
    const state: StrataRequestState = req.strata ?? (req.strata = { request_id: '' });

    if (route.tag === 'public') {
      if (!READ_METHODS.has(req.method)) await this.throttler.canActivate(context);
      return true;
    }

    const header = req.headers.authorization;
    const m = typeof header === 'string' ? BEARER_RE.exec(header) : null;
    if (!m) throw AuthErrors.unauthorized();
    const orgHeader = req.headers['x-org-id'];
    const shim: BearerRequest = {
      headers: { authorization: `Bearer ${m[1]}` },
      org_header: typeof orgHeader === 'string' && orgHeader !== '' ? orgHeader : undefined,
      resolver: this.resolver,
    };
    (req as { _bearer?: BearerRequest })._bearer = shim;
    await super.canActivate(context);
    const auth = shim.user as AuthContext;
    state.auth = auth; // set before the checks below so refused requests still count as the credential's activity

    if (JWT_ONLY.has(route.tag)) {
      if (auth.credential !== 'user_jwt') throw AuthErrors.apiKeyNotAllowed();
      if (route.tag === 'owner_jwt' && auth.role !== 'owner') throw AuthErrors.insufficientRole('owner');
      if (route.tag === 'owner_admin_jwt' && auth.role !== 'owner' && auth.role !== 'admin') throw AuthErrors.insufficientRole('admin');
    } else if (auth.org_id === '') {
      throw AuthErrors.noOrganization();
    }
    if (route.tag === 'api_key_or_jwt' && !READ_METHODS.has(req.method) && route.access !== 'read' && route.access !== 'by_action' && !auth.scopes.includes('write'))
      throw AuthErrors.readOnly();

    await this.throttler.canActivate(context);
    return true;
  }

  /** passport sees only the shim (header + X-Org-Id), never the body or query string */
  override getRequest(context: ExecutionContext): BearerRequest {
    return context.switchToHttp().getRequest()._bearer;
  }

  override handleRequest<T>(err: unknown, user: T): T {
    if (err) throw err;
    if (!user) throw AuthErrors.invalidToken();
    return user;
  }

  private routeAuth(context: ExecutionContext): RouteAuth {
    const handler = context.getHandler();
    let r = this.routes.get(handler);
    if (r === undefined) {
      const targets = [handler, context.getClass()];
      r = {
        tag: this.reflector.getAllAndOverride<AuthTag>(AUTH_TAG, targets) ?? 'api_key_or_jwt',
        access: this.reflector.getAllAndOverride<AccessKind>(ACCESS_KIND, targets),
      };
      this.routes.set(handler, r);
    }
    return r;
  }
}
