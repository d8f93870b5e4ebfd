/* eslint-disable @typescript-eslint/no-require-imports */
import { AsyncResource } from 'node:async_hooks';
import type { FastifyReply, FastifyRequest } from 'fastify';

const PATCHED = Symbol('strata.parseBodiesWithoutBind');

type Done = (error: unknown, body?: unknown) => void;
interface Parser {
  asString?: boolean;
  asBuffer?: boolean;
  fn(req: FastifyRequest, payload: unknown, done: Done): unknown;
}
interface ContentTypeParserProto {
  getParser(contentType: string): Parser | undefined;
  run(contentType: string, handler: (req: FastifyRequest, reply: FastifyReply) => void, request: FastifyRequest, reply: FastifyReply): void;
}

/**
 * Fastify runs every body parser's callback in the request's async context through
 * `AsyncResource.bind`. On Node 20, `bind` also defines the deprecated `asyncResource`
 * property on each bound function, and builds a deprecation wrapper for its getter and its
 * setter every call: about a fifth of the HTTP layer's own CPU time on POST /node (measured).
 * This puts in Fastify's own `run` with the one difference that the callback enters the
 * context through `runInAsyncScope` instead, which keeps the context (the read-lag flag and
 * OpenTelemetry's spans live there) and builds nothing. Left as it is when Fastify's `run`
 * is not the one this replaces (another Fastify version), and applied once per process.
 */
export function parseBodiesWithoutBind(): boolean {
  const ContentTypeParser = require('fastify/lib/content-type-parser');
  const proto = ContentTypeParser.prototype as ContentTypeParserProto & { [PATCHED]?: true };
  if (proto[PATCHED]) return true;
  const source = String(proto.run);
  if (!source.includes('resource.bind(onDone)') || !source.includes("new AsyncResource('content-type-parser:run', request)")) return false;
  const { kRouteContext, kRequestPayloadStream, kReplyIsError, kTestInternals } = require('fastify/lib/symbols');
  const { FST_ERR_CTP_INVALID_MEDIA_TYPE } = require('fastify/lib/errors');
  const { rawBody } = ContentTypeParser[kTestInternals] as { rawBody: (req: unknown, reply: unknown, options: unknown, parser: Parser, done: Done) => void };
  if (typeof rawBody !== 'function' || !kRouteContext || !kRequestPayloadStream || !kReplyIsError) return false;

  proto.run = function run(this: ContentTypeParserProto, contentType, handler, request, reply) {
    const parser = this.getParser(contentType);
    const r = reply as unknown as Record<symbol, any>;
    if (parser === undefined) {
      if (request.is404 === true) {
        handler(request, reply);
        return;
      }
      r[kReplyIsError] = true;
      reply.send(new FST_ERR_CTP_INVALID_MEDIA_TYPE());
      return;
    }
    const resource = new AsyncResource('content-type-parser:run');
    const onDone = (error: unknown, body: unknown): void => {
      resource.emitDestroy();
      if (error != null) {
        // the client may still be sending: the connection closes after this answer
        reply.header('connection', 'close');
        r[kReplyIsError] = true;
        reply.send(error as Error);
        return;
      }
      request.body = body;
      handler(request, reply);
    };
    const done: Done = (error, body) => resource.runInAsyncScope(onDone, undefined, error, body);
    if (parser.asString === true || parser.asBuffer === true) {
      rawBody(request, reply, r[kRouteContext]._parserOptions, parser, done);
      return;
    }
    const result = parser.fn(request, (request as unknown as Record<symbol, unknown>)[kRequestPayloadStream], done) as PromiseLike<unknown> | undefined;
    if (result && typeof result.then === 'function') result.then((body) => done(null, body), done);
  };
  proto[PATCHED] = true;
  return true;
}
