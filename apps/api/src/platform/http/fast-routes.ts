import { Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { RouteAuth } from '@strata/auth/route-access';
import { routeMetadataOf } from '@strata/auth/route-tags';
import { toErrorResponse } from './all-exceptions.filter';
import { RouteTable } from './route-table';

/** The OpenAPI operation of a fast route (Nest's scanner does not see it). */
export interface FastRouteDoc {
  /** OpenAPI path, e.g. `/node/{uid}` */
  path: string;
  tag: string;
  summary: string;
  parameters: { name: string; in: 'path' | 'query'; required: boolean; schema: Record<string, unknown>; description?: string }[];
  /** a WebSocket route: its answer is 101 Switching Protocols, not a JSON body */
  websocket?: boolean;
}

export interface FastRoute {
  method: 'GET';
  /** Fastify pattern, e.g. `/node/:uid` */
  url: string;
  auth: RouteAuth;
  doc: FastRouteDoc;
  /** Answers the request (reply.send); throws DomainError for the error shapes. */
  handle(req: FastifyRequest, reply: FastifyReply, auth: AuthContext): void | Promise<void>;
}

/**
 * A hot write route declared by a controller method (its path, DTO, auth tag and OpenAPI entry
 * stay there, so the document is the one Nest derives) whose handler Fastify runs is this one,
 * outside the Nest pipeline. `handle` validates the body as the controller's parameter pipe
 * does and answers `status` on success.
 */
export interface TakenRoute {
  method: 'POST';
  /** the Fastify path Nest registers for the controller method, e.g. `/node` */
  url: string;
  controller: Function;
  /** the controller method: its auth metadata is the lane's */
  methodName: string;
  status: number;
  handle(req: FastifyRequest, reply: FastifyReply, auth: AuthContext): void | Promise<void>;
}

/**
 * Hot read routes registered on Fastify directly, outside the Nest router. The Nest pipeline
 * (router context, guards consumer, param pipes, interceptors) cost a large share of the CPU
 * time of `GET /node/{uid}` (measured), so
 * single-object reads by uid take this lane. Everything a client can observe is the same as
 * on a controller route: DirectAuthenticator applies the guard's resolver, access rules and
 * rate limit; errors go through the exception filter's `toErrorResponse`; request ids,
 * readiness and request activity come from the Fastify hooks every route passes; the route
 * is in the RouteTable (405s), in OpenAPI, and in the auth-tag test.
 */
@Injectable()
export class FastRoutes {
  private readonly routes: FastRoute[] = [];
  private readonly described: FastRouteDoc[] = [];
  private readonly taken: TakenRoute[] = [];
  private readonly log = new Logger('Errors');

  add(route: FastRoute): void {
    this.routes.push(route);
  }

  /** the OpenAPI entry of a GET route an area registers on Fastify itself (a WebSocket); call before start-up */
  describe(doc: FastRouteDoc): void {
    this.described.push(doc);
  }

  /** what OpenAPI lists besides the controllers: the fast routes and the described ones */
  docs(): readonly { method: 'GET'; doc: FastRouteDoc }[] {
    return [...this.routes.map((r) => ({ method: r.method, doc: r.doc })), ...this.described.map((doc) => ({ method: 'GET' as const, doc }))];
  }

  /** Serve a controller's write route on the fast lane (see TakenRoute); call before start-up. */
  takeOver(route: TakenRoute): void {
    this.taken.push(route);
  }

  /** the controller routes served on the fast lane */
  takenOver(): readonly TakenRoute[] {
    return this.taken;
  }

  list(): readonly FastRoute[] {
    return this.routes;
  }

  install(fastify: FastifyInstance, authenticator: DirectAuthenticator, table: RouteTable): void {
    for (const route of this.routes) {
      fastify.route({ method: route.method, url: route.url, handler: this.lane(authenticator, table, route.auth, route.handle, 200) });
    }
    if (!this.taken.length) return;
    const found = new Set<TakenRoute>();
    // Nest registers the controller routes when the application starts, after this hook is in place
    fastify.addHook('onRoute', (opts) => {
      const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
      const route = this.taken.find((r) => r.url === opts.url && methods.includes(r.method));
      if (!route) return;
      found.add(route);
      opts.handler = this.lane(authenticator, table, routeAuthOf(route), route.handle, route.status);
    });
    fastify.addHook('onReady', async () => {
      const missing = this.taken.filter((r) => !found.has(r));
      // a renamed controller path would otherwise leave the route on the slow lane unnoticed
      if (missing.length) throw new Error(`fast lane: no controller route ${missing.map((r) => `${r.method} ${r.url}`).join(', ')}`);
    });
  }

  private lane(
    authenticator: DirectAuthenticator,
    table: RouteTable,
    routeAuth: RouteAuth,
    handle: (req: FastifyRequest, reply: FastifyReply, auth: AuthContext) => void | Promise<void>,
    status: number,
  ) {
    // no promise unless a step must wait: each await of a value already known is a turn of
    // the microtask queue and a promise per request on the hottest routes
    return (req: FastifyRequest, reply: FastifyReply) => {
      const fail = (err: unknown): FastifyReply => {
        const { status, body, headers } = toErrorResponse(err, req, table, this.log);
        for (const [k, v] of Object.entries(headers)) reply.header(k, v);
        return reply.status(status).send(body);
      };
      try {
        if (status !== 200) reply.status(status);
        const auth = authenticator.authenticate(req, reply, routeAuth);
        const done = auth instanceof Promise ? auth.then((a) => handle(req, reply, a)) : handle(req, reply, auth);
        if (done instanceof Promise) return done.then(() => reply, fail);
      } catch (err) {
        fail(err);
      }
    };
  }
}

/** The guard's reading of the controller method's auth metadata. */
function routeAuthOf(route: TakenRoute): RouteAuth {
  const handler = (route.controller.prototype as Record<string, Function>)[route.methodName];
  if (typeof handler !== 'function') throw new Error(`fast lane: ${route.controller.name}.${route.methodName} is not a method`);
  return routeMetadataOf(handler, route.controller);
}
