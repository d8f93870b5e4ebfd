import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { CredentialResolver } from '@strata/auth/credential-resolver';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { assertRouteAccess } from '@strata/auth/route-access';
import { McpExchange, RouteAnswer, RouteCall, RouteCaller, lazyRouteAnswer } from '@strata/mcp/server';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { VERSION } from '@strata/platform/version';
import { toErrorResponse } from '../../platform/http/all-exceptions.filter';
import { BODY_LIMIT } from '../../platform/http/configure-http';
import { RouteTable } from '../../platform/http/route-table';

/** Methods whose route call is the request that counts for the rate limit (REFERENCE §15.11). */
const ROUTED_METHODS = new Set(['tools/call', 'resources/read']);

/** The rate-limit headers of the counted route call, passed on to the `/mcp` answer. */
const RATE_HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after'] as const;

/** The route calls one `/mcp` request made, and the rate-limit headers of the counted one. */
interface RouteCalls {
  made: number;
  rateHeaders: Record<string, string>;
}

function rpcError(reply: FastifyReply, status: number, code: number, message: string): FastifyReply {
  return reply.status(status).header('content-type', 'application/json').send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

/**
 * `POST /mcp`: Strata's MCP server over Streamable HTTP, stateless. Registered on Fastify in a
 * context of its own, whose body parser hands the raw text to the JSON-RPC layer (a batch or
 * a parse error is a JSON-RPC error here, not the REST `invalid_json`). The credential is the
 * guard's (API key or user JWT, §1.11); tools and resources answer by calling Strata's routes
 * in-process with that same credential, so nothing of a route is implemented twice.
 */
@Injectable()
export class McpEndpoint implements OnModuleInit {
  private readonly log = new Logger('Errors');
  private readonly exchange = new McpExchange(VERSION);
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
    private readonly routes: RouteTable,
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
  ) {}

  /**
   * A key bound to a managed agent lists and calls only the agent's tools (REFERENCE §16.13); a
   * key bound to an external agent id is not narrowed. The agent is the one this request's
   * credential was resolved with, not read again.
   */
  private allowedToolsOf(authenticator: DirectAuthenticator, req: FastifyRequest, auth: AuthContext): ReadonlySet<string> | undefined {
    if (auth.bound_agent_id === null) return undefined;
    const agent = authenticator.boundAgent(req);
    return agent ? new Set(agent.tools) : undefined;
  }

  onModuleInit(): void {
    // an application context without an HTTP server (a CLI-style context) serves no /mcp
    const adapter = this.adapterHost?.httpAdapter;
    if (!adapter) return;
    const fastify = adapter.getInstance<FastifyInstance>();
    // the authenticator is the accounts area's provider; found at run time, not imported
    const authenticator = this.moduleRef.get(DirectAuthenticator, { strict: false });
    const resolver = this.moduleRef.get(CredentialResolver, { strict: false });
    const allowed = new Set(this.config.mcp.allowedOrigins);
    void fastify.register(async (child) => {
      child.removeAllContentTypeParsers();
      child.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
      // a page on another origin must not drive a local Strata with the user's browser
      child.addHook('onRequest', async (req, reply) => {
        const origin = req.headers.origin;
        if (origin !== undefined && !allowed.has(origin)) {
          await reply.status(403).send({ error: `Origin ${origin} is not allowed to call /mcp (STRATA_MCP_ALLOWED_ORIGINS)`, code: 'forbidden' });
        }
      });
      child.post('/mcp', async (req, reply) => {
        try {
          return await this.handle(fastify, authenticator, resolver, req, reply);
        } catch (err) {
          const { status, body, headers } = toErrorResponse(err, req, this.routes, this.log);
          for (const [k, v] of Object.entries(headers)) reply.header(k, v);
          return reply.status(status).send(body);
        }
      });
    });
  }

  private async handle(fastify: FastifyInstance, authenticator: DirectAuthenticator, resolver: CredentialResolver, req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const text = typeof req.body === 'string' ? req.body : '';
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      // authentication still comes first (REFERENCE §4.0)
      authenticator.resolveCredential(req);
      return rpcError(reply, 400, -32700, 'Parse error: the body is not JSON');
    }
    const method = typeof message === 'object' && message !== null && !Array.isArray(message) ? (message as { method?: unknown }).method : undefined;
    let auth: AuthContext;
    const route = { tag: 'api_key_or_jwt' as const, access: 'read' as const };
    const routed = typeof method === 'string' && ROUTED_METHODS.has(method);
    if (routed) {
      // the first route the call reaches goes through the full guard: that is the one counted
      auth = authenticator.resolveCredential(req);
      assertRouteAccess(route, 'GET', auth);
    } else {
      auth = await authenticator.authenticate(req, reply, route);
    }
    const headers: Record<string, string | undefined> = {
      accept: req.headers.accept,
      'content-type': req.headers['content-type'],
      'mcp-protocol-version': typeof req.headers['mcp-protocol-version'] === 'string' ? req.headers['mcp-protocol-version'] : undefined,
    };
    const calls: RouteCalls = { made: 0, rateHeaders: {} };
    const answer = await this.exchange.answer(message, headers, { call: this.caller(fastify, req, auth, resolver, calls), canWrite: auth.scopes.includes('write'), allowedTools: this.allowedToolsOf(authenticator, req, auth) });
    // a tools/call counts as one request (REFERENCE §15.11) even when it reached no route
    if (routed && calls.made === 0) await authenticator.authenticate(req, reply, route);
    // the counted route call's X-RateLimit-* are this request's (REFERENCE §1.12)
    for (const [k, v] of Object.entries(calls.rateHeaders)) reply.header(k, v);
    reply.status(answer.status);
    for (const [k, v] of Object.entries(answer.headers)) reply.header(k, v);
    return reply.send(answer.body === '' ? undefined : answer.body);
  }

  /**
   * Calls a Strata route in-process as the credential of the `/mcp` request. The first route
   * call is counted against the credential's rate limit by the route's guard; later ones of the
   * same request (an article read back after its /batch) run under a token lent for that same
   * credential, outside the count: one `tools/call` is one request.
   */
  private caller(fastify: FastifyInstance, req: FastifyRequest, auth: AuthContext, resolver: CredentialResolver, calls: RouteCalls): RouteCaller {
    const forwarded: Record<string, string> = {};
    if (typeof req.headers.authorization === 'string') forwarded.authorization = req.headers.authorization;
    if (typeof req.headers['x-org-id'] === 'string') forwarded['x-org-id'] = req.headers['x-org-id'];
    return (call: RouteCall): Promise<RouteAnswer> => {
      const lent = calls.made++ === 0 ? null : resolver.delegate(auth);
      const credential = lent ? { authorization: `Bearer ${lent.token}` } : forwarded;
      const query = call.query && Object.keys(call.query).length ? `?${new URLSearchParams(call.query).toString()}` : '';
      const options = {
        method: call.method,
        url: call.path + query,
        headers: call.body ? { ...credential, 'content-type': 'application/json' } : credential,
        payload: call.body ? JSON.stringify(call.body) : undefined,
        // built here, so light-my-request need not check them against its schema on every call
        validate: false,
      };
      // the callback form dispatches at once; the promise form waits a tick and builds a chain
      return new Promise<RouteAnswer>((resolve, reject) => {
        fastify.inject(options, (err, res) => {
          if (err || !res) return reject(err ?? new Error('inject answered nothing'));
          if (!lent) for (const k of RATE_HEADERS) if (typeof res.headers[k] === 'string') calls.rateHeaders[k] = res.headers[k] as string;
          resolve(routeAnswerOf(res.statusCode, res.headers['content-type'], res.body));
        });
      }).finally(() => lent?.end());
    };
  }
}

/** The route's answer: its JSON text kept as it is (a tool result carries it, parsed only if read). */
function routeAnswerOf(status: number, type: string | string[] | number | undefined, text: string): RouteAnswer {
  if (text !== '' && typeof type === 'string' && type.startsWith('application/json')) return lazyRouteAnswer(status, text);
  let body: unknown = null;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = { error: 'the route answered a body that is not JSON', code: 'internal_error' };
  }
  return { status, body };
}
