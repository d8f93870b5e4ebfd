import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Readiness } from './readiness';
import { RouteTable } from './route-table';

export const BODY_LIMIT = 10 * 1024 * 1024;
const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify-level behaviour that sits before Nest: JSON parsing rules (REFERENCE §1.1), request
 * ids and the 503 while starting. Failures raised before a handler runs (parsing, body size)
 * reach Nest's exception layer, hence AllExceptionsFilter. Must run before the application
 * registers its routes.
 */
export function configureHttp(fastify: FastifyInstance, routes: RouteTable, readiness: Readiness): void {
  fastify.addHook('onRoute', (opts) => routes.add(opts.method as string | string[], opts.url));

  fastify.removeAllContentTypeParsers();
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => {
    const text = (body as string).trim();
    if (text === '') return done(null, {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      return done(Object.assign(new Error((err as Error).message), { statusCode: 400 }), undefined);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      return done(Object.assign(new Error('the root of the body must be a JSON object'), { statusCode: 400 }), undefined);
    done(null, parsed);
  });
  // any other media type with a body is refused (415); bodiless requests never reach a parser
  fastify.addContentTypeParser('*', (_req, _payload, done) => {
    done(Object.assign(new Error('unsupported media type'), { statusCode: 415 }), undefined);
  });

  fastify.addHook('onRequest', (req: FastifyRequest, reply: FastifyReply, done) => {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && REQUEST_ID_RE.test(sent) ? sent : randomUUID();
    (req as unknown as { strata: { request_id: string } }).strata = { request_id: id };
    reply.header('X-Request-Id', id);
    if (!readiness.ready && req.url !== '/health') {
      reply.header('Retry-After', '2');
      reply.code(503).send({ error: readiness.draining ? 'the server is shutting down' : 'the server is starting', code: 'unavailable', retry_after: 2 });
      return;
    }
    done();
  });
}
