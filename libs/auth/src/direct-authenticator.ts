import { Injectable } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext, StrataRequestState, authForRequest } from './auth-context';
import { CredentialResolver } from './credential-resolver';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';
import { RouteAuth, assertRouteAccess, bearerTokenOf, orgHeaderOf } from './route-access';

/**
 * Authentication for the few hot routes registered on Fastify directly (fast-routes.ts in the
 * API platform): the same resolver, access rules and per-credential rate limit as
 * StrataAuthGuard, minus the Nest pipeline.
 */
@Injectable()
export class DirectAuthenticator {
  constructor(
    private readonly resolver: CredentialResolver,
    private readonly throttler: PlanThrottlerGuard,
  ) {}

  /**
   * Authentication alone, before the body is read (the early hook of configure-http.ts): a
   * missing, malformed, unknown or expired credential is refused before any body error
   * (REFERENCE §4.0, step 1). Route rules and the rate limit stay with the guard, which
   * resolves the credential again from the resolver's cache.
   */
  resolveCredential(req: FastifyRequest): AuthContext {
    return this.resolver.resolve(bearerTokenOf(req.headers.authorization), orgHeaderOf(req.headers['x-org-id']));
  }

  /**
   * The request's AuthContext, attached as `request.strata.auth`, after the route's access
   * rules (the guard's and the fast lane's one path); the rate limit is the caller's to count.
   */
  admit(req: FastifyRequest, route: RouteAuth): AuthContext {
    const r = req as unknown as { strata?: StrataRequestState; method: string };
    const state: StrataRequestState = r.strata ?? (r.strata = { request_id: '' });
    const auth = authForRequest(this.resolveCredential(req), req);
    state.auth = auth; // before the checks: refused requests still count as the credential's activity
    assertRouteAccess(route, req.method, auth);
    return auth;
  }

  /** The request's AuthContext, counted against its rate limit; a promise only where the count must wait. */
  authenticate(req: FastifyRequest, reply: FastifyReply, route: RouteAuth): AuthContext | Promise<AuthContext> {
    const auth = this.admit(req, route);
    const context = new ExecutionContextHost([req, reply]);
    if (this.throttler.tryCountSync(context)) return auth;
    return this.throttler.canActivate(context).then(() => auth);
  }
}
