import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { REQUEST_FACTS, RequestWithFacts } from '@strata/auth/auth-context';

/**
 * What the policy gate reads about the HTTP request behind a write (REFERENCE §13.6): method,
 * path, body, the approval it replays, and the shadow warnings it must answer with. Carried
 * on the request's AuthContext into its command context, because the unit of work decides
 * requests outside their own async context.
 */
export interface HttpRequestFacts {
  method: string;
  /** the path as sent, without query string */
  path: string;
  /** the route's template, `{param}` placeholders (the path when no route matched) */
  route: string;
  /** the parsed JSON body (read when the gate runs, after parsing) */
  body(): unknown;
  /** `X-Approval-Uid`, when sent */
  approvalUid: string | null;
  /** `Warning: 299` values the response carries */
  readonly warnings: string[];
}

/**
 * The request a background write is made for (the units an ingestion job commits): policies
 * judge those writes as part of it (REFERENCE §13.6). Plain data: it travels in a job's input.
 */
export interface RequestOrigin {
  method: string;
  path: string;
  route: string;
  action: string | null;
  /** the approval the request was replayed with and consumed: it covers the writes made for it */
  approval_uid: string | null;
}

/** The origin of the writes a request leaves to a job, once its own write committed. */
export function requestOrigin(http: HttpRequestFacts | undefined): RequestOrigin | undefined {
  if (!http) return undefined;
  const body = http.body();
  const action = body && typeof body === 'object' && typeof (body as Record<string, unknown>).action === 'string' ? ((body as Record<string, unknown>).action as string) : null;
  return { method: http.method, path: http.path, route: http.route, action, approval_uid: http.approvalUid };
}

/** Routes the server registered, as (METHOD, url with `:param` segments): policy templates must name one. */
export class KnownRoutes {
  private readonly routes: { method: string; url: string }[] = [];

  add(method: string | string[], url: string): void {
    for (const m of Array.isArray(method) ? method : [method]) if (m !== 'HEAD' && m !== 'OPTIONS') this.routes.push({ method: m.toUpperCase(), url });
  }

  /** Every registered (method, url), for validation. */
  all(): readonly { method: string; url: string }[] {
    return this.routes;
  }
}

/**
 * Gives every request its facts in `onRequest` (the auth guard puts them on the request's
 * AuthContext: auth-context.ts, REQUEST_FACTS) and writes the shadow warnings as `Warning`
 * headers on the way out.
 */
export function registerPolicyRequestContext(fastify: FastifyInstance, routes: KnownRoutes): void {
  fastify.addHook('onRoute', (r) => routes.add(r.method as string | string[], r.url));
  fastify.addHook('onRequest', (req: FastifyRequest, _reply: FastifyReply, done: () => void) => {
    const header = req.headers['x-approval-uid'];
    const url = req.url;
    const q = url.indexOf('?');
    const facts: HttpRequestFacts = {
      method: req.method.toUpperCase(),
      path: q < 0 ? url : url.slice(0, q),
      route: templateOf(req.routeOptions?.url) ?? (q < 0 ? url : url.slice(0, q)),
      body: () => req.body,
      approvalUid: typeof header === 'string' && header.trim() ? header.trim() : null,
      warnings: [],
    };
    (req as unknown as { strataPolicy: HttpRequestFacts }).strataPolicy = facts;
    (req as unknown as RequestWithFacts)[REQUEST_FACTS] = facts;
    done();
  });
  fastify.addHook('onSend', (req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, payload: unknown) => void) => {
    const w = (req as unknown as { strataPolicy?: HttpRequestFacts }).strataPolicy?.warnings;
    if (w && w.length) reply.header('Warning', w.length === 1 ? w[0] : w);
    done(null, payload);
  });
}

/** Route templates by Fastify url: a route's url is one of a fixed few, so each is rewritten once, not per request. */
const templates = new Map<string, string>();

function templateOf(url: string | undefined): string | null {
  if (!url) return null;
  let t = templates.get(url);
  if (t === undefined) templates.set(url, (t = url.replace(/:([A-Za-z0-9_]+)/g, '{$1}')));
  return t;
}
