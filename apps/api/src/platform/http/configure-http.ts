import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { isUtf8 } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { DirectAuthenticator } from '@strata/auth/direct-authenticator';
import { PUBLIC_ROUTE_CONFIG } from '@strata/auth/route-tags';
import { strataClientErrorHandler } from './client-errors';
import { MAX_JSON_DEPTH, jsonBodyProblem, nestsDeeperThan } from './json-body';
import { parseBodiesWithoutBind } from './parser-async-scope';
import { Readiness } from './readiness';
import { tracing } from '@strata/observability/tracing';
import { emptyJsonBody } from '@strata/domain/validation';
import { readRequestId, sendHeadAsBytes } from './request-id';
import { RouteTable } from './route-table';

export const BODY_LIMIT = 10 * 1024 * 1024;
/**
 * Longest path parameter the router matches. Fastify's default (100) is below the 128
 * characters a uid may have (REFERENCE §1.4); longer well-formed-looking values reach the
 * handlers, which answer 400 invalid_uid.
 */
export const MAX_PARAM_LENGTH = 1024;
/** methods Fastify never reads a body for */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'TRACE']);

/**
 * The request id of REFERENCE §1.1: the client's X-Request-Id echoed as sent (request-id.ts),
 * else a new one.
 */
function assignRequestId(req: FastifyRequest, reply: FastifyReply): string {
  const r = req as unknown as { strata?: { request_id: string } };
  if (r.strata?.request_id) return r.strata.request_id;
  const sent = readRequestId(req.headers['x-request-id']);
  if (sent.kind === 'echo') {
    r.strata = { request_id: sent.id };
    reply.header('X-Request-Id', sent.header);
    if (sent.nonAscii) sendHeadAsBytes(reply.raw);
    return sent.id;
  }
  const id = randomUUID();
  r.strata = { request_id: id };
  reply.header('X-Request-Id', id);
  return id;
}

/**
 * Errors the router raises before any hook runs (no route context yet): a path parameter
 * over MAX_PARAM_LENGTH or with bad percent-encoding. Every path parameter is an id, so both
 * are 400 invalid_uid, in the Strata shape and with X-Request-Id like every other answer.
 */
function frameworkErrors(error: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const requestId = assignRequestId(req, reply);
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    reply.code(400).send({ error: `a path parameter is longer than ${MAX_PARAM_LENGTH} characters: ids are 1–128 characters from [A-Za-z0-9._:-]`, code: 'invalid_uid' });
    return;
  }
  if (error.code === 'FST_ERR_BAD_URL') {
    reply.code(400).send({ error: 'a path parameter is not valid percent-encoding: ids are 1–128 characters from [A-Za-z0-9._:-]', code: 'invalid_uid' });
    return;
  }
  reply.code(500).send({ error: 'internal error', code: 'internal_error', request_id: requestId });
}

/**
 * Options of the Fastify instance: the body limit of REFERENCE §1.13, path parameters long
 * enough for every uid, router and HTTP-parser errors in the Strata shape. No built-in 503 while closing (its
 * body is Fastify's): the readiness hook answers 503 unavailable with Retry-After instead.
 */
export function fastifyOptions(): FastifyServerOptions {
  return {
    bodyLimit: BODY_LIMIT,
    logger: false,
    return503OnClosing: false,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors,
    clientErrorHandler: strataClientErrorHandler,
  };
}

/**
 * Fastify-level behaviour that sits before Nest: JSON parsing rules (REFERENCE §1.1), request
 * ids, the 503 while starting and authentication before the body is read. Failures raised before a handler runs (parsing, body size)
 * reach Nest's exception layer, hence AllExceptionsFilter. Must run before the application
 * registers its routes.
 */
/** Probes and metrics answer while the service starts or drains (they report exactly that). */
const OPEN_WHILE_UNREADY = new Set(['/health', '/health/live', '/health/ready', '/metrics']);

export function configureHttp(fastify: FastifyInstance, routes: RouteTable, readiness: Readiness, authenticator: DirectAuthenticator): void {
  fastify.addHook('onRoute', (opts) => routes.add(opts.method as string | string[], opts.url));

  // Authentication comes first (REFERENCE §4.0): on a protected route, the credential of a
  // request that may carry a body is checked before the body is read, so a missing or bad
  // credential answers 401 (not 400 invalid_json, 413 or 415) and an unauthenticated client
  // never has its body read. Public routes, unknown routes and bodyless methods (GET: the
  // fast lane) skip it; the guard still does the full check, from the resolver's cache.
  fastify.addHook('preParsing', (req, _reply, payload, done) => {
    const config = req.routeOptions.config as unknown as Record<string, unknown> | undefined;
    if (BODYLESS_METHODS.has(req.method) || req.is404 || config?.[PUBLIC_ROUTE_CONFIG] === true) return done(null, payload);
    try {
      authenticator.resolveCredential(req);
    } catch (err) {
      return done(err as Error, payload);
    }
    done(null, payload);
  });

  parseBodiesWithoutBind();
  fastify.removeAllContentTypeParsers();
  // the one JSON parser of every route (import included): 400 invalid_json for bytes that are
  // not UTF-8, text that does not parse, a root that is not an object, nesting deeper than MAX_JSON_DEPTH (checked on
  // the text, before parsing) and prototype-pollution keys (json-body.ts)
  const invalid = (message: string) => Object.assign(new Error(message), { statusCode: 400 });
  // read as bytes: decoding while reading would turn bytes that are not UTF-8 into U+FFFD and
  // then trip Fastify's length check (a misleading 400 about Content-Length)
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    if (!isUtf8(body as Buffer)) return done(invalid('the body is not valid UTF-8'), undefined);
    const text = (body as Buffer).toString('utf8').trim();
    if (text === '') return done(null, emptyJsonBody());
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(invalid(`the body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return done(invalid((err as Error).message), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return done(invalid('the root of the body must be a JSON object'), undefined);
    const problem = jsonBodyProblem(parsed, MAX_JSON_DEPTH);
    if (problem !== null) return done(invalid(problem), undefined);
    done(null, parsed);
  });
  // any other media type with a body is refused (415); bodiless requests never reach a parser
  fastify.addContentTypeParser('*', (_req, _payload, done) => {
    done(Object.assign(new Error('unsupported media type'), { statusCode: 415 }), undefined);
  });

  // shutting down (app.close or a signal): answer 503 unavailable from here on, as at start-up
  fastify.addHook('preClose', (done) => {
    readiness.ready = false;
    readiness.draining = true;
    done();
  });

  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done) => {
    tracing.tagRequest(assignRequestId(req, reply));
    if (!readiness.ready && !OPEN_WHILE_UNREADY.has(req.url)) {
      reply.header('Retry-After', '2');
      reply.code(503).send({ error: readiness.draining ? 'the server is shutting down' : 'the server is starting', code: 'unavailable', retry_after: 2 });
      return;
    }
    done();
  });
}
