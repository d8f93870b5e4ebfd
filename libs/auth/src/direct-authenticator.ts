import { Injectable } from '@nestjs/common';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext, StrataRequestState, authForRequest } from './auth-context';
import { BoundAgent, CredentialResolver, ResolvedCredential } from './credential-resolver';
import { PlanThrottlerGuard } from './rate-limit/plan-throttler.guard';
import { RouteAuth, assertRouteAccess, bearerTokenOf, orgHeaderOf } from './route-access';

/** Where a request keeps its resolved credential: the early hook, the guard and the route share one resolution. */
const RESOLVED: unique symbol = Symbol('strata.resolved_credential');
type WithResolved = { [RESOLVED]?: ResolvedCredential };

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
   * takes the resolution this request already made: a key bound to a managed agent reads the
   * agent once per request, never once per caller within it.
   */
  resolveCredential(req: FastifyRequest): AuthContext {
    return this.resolved(req).auth;
  }

  /** The managed agent the request's key is bound to, as read for this request (null: none). */
  boundAgent(req: FastifyRequest): BoundAgent | null {
    const r = this.resolved(req);
    if (r.agent === undefined) r.agent = this.resolver.boundAgentOf(r.auth);
    return r.agent;
  }

  private resolved(req: FastifyRequest): ResolvedCredential {
    const r = req as unknown as WithResolved;
    return (r[RESOLVED] ??= this.resolver.resolveWithAgent(bearerTokenOf(req.headers.authorization), orgHeaderOf(req.headers['x-org-id'])));
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
