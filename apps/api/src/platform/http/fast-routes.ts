import { Injectable, Logger } from '@nestjs/common';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { RouteAuth } from '@strata/auth/route-access';
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

  list(): readonly FastRoute[] {
    return this.routes;
  }

  install(fastify: FastifyInstance, authenticator: DirectAuthenticator, table: RouteTable): void {
    for (const route of this.routes) {
      fastify.route({
        method: route.method,
        url: route.url,
        // no promise unless a step must wait: each await of a value already known is a turn of
        // the microtask queue and a promise per request on the hottest read
        handler: (req, reply) => {
          const fail = (err: unknown): FastifyReply => {
            const { status, body, headers } = toErrorResponse(err, req, table, this.log);
            for (const [k, v] of Object.entries(headers)) reply.header(k, v);
            return reply.status(status).send(body);
          };
          try {
            const auth = authenticator.authenticate(req, reply, route.auth);
            const done = auth instanceof Promise ? auth.then((a) => route.handle(req, reply, a)) : route.handle(req, reply, auth);
            if (done instanceof Promise) return done.then(() => reply, fail);
          } catch (err) {
            fail(err);
          }
        },
      });
    }
  }
}
