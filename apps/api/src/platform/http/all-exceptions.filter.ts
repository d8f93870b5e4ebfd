import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '@strata/domain/errors';
import { isEmptyJsonBody } from '@strata/domain/validation';
import { DEFAULT_CODE_BY_STATUS } from './error-codes';
import { RouteTable } from './route-table';

/** Shapes every failure as `{error, code, ...context}` (REFERENCE §1.10). Never leaks internals. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly log = new Logger('Errors');

  constructor(private readonly routes: RouteTable) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const ctx = host.switchToHttp();
    const reply = ctx.getResponse<FastifyReply>();
    const req = ctx.getRequest<FastifyRequest>();
    const { status, body, headers } = toErrorResponse(exception, req, this.routes, this.log);
    for (const [k, v] of Object.entries(headers)) reply.header(k, v);
    reply.status(status).send(body);
  }
}

export function toErrorResponse(
  exception: unknown,
  req: FastifyRequest,
  routes: RouteTable,
  log: Logger,
): { status: number; body: Record<string, unknown>; headers: Record<string, string> } {
  const headers: Record<string, string> = {};
  if (exception instanceof DomainError) {
    if (emptyBodyLacksRequiredField(exception, req))
      return { status: 400, body: { error: 'the request body is empty; this route needs a JSON object', code: 'invalid_json' }, headers };
    if (exception.status === 401) headers['WWW-Authenticate'] = exception.code === 'unauthorized' ? 'Bearer realm="strata"' : 'Bearer realm="strata", error="invalid_token"';
    const retry = exception.context.retry_after;
    if ((exception.status === 503 || exception.status === 429) && typeof retry === 'number') headers['Retry-After'] = String(retry);
    return { status: exception.status, body: exception.toBody(), headers };
  }
  if (exception instanceof NotFoundException && /^Cannot [A-Z]+ /.test(String((exception.getResponse() as { message?: string })?.message ?? ''))) {
    const allowed = routes.methodsFor(req.url);
    if (allowed.length) {
      headers.Allow = allowed.join(', ');
      return { status: 405, body: { error: `${req.method} is not allowed on this route`, code: 'method_not_allowed' }, headers };
    }
    return { status: 404, body: { error: `no route ${req.method} ${req.url.split('?')[0]}`, code: 'route_not_found' }, headers };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    const res = exception.getResponse();
    const body = typeof res === 'object' && res !== null ? (res as Record<string, unknown>) : { error: String(res) };
    if (typeof body.error === 'string' && typeof body.code === 'string') return { status, body, headers };
    const message = Array.isArray(body.message) ? body.message.join('; ') : String(body.message ?? body.error ?? exception.message);
    if (status === 401) headers['WWW-Authenticate'] = 'Bearer realm="strata"';
    return { status, body: { error: message, code: DEFAULT_CODE_BY_STATUS[status] ?? 'error' }, headers };
  }
  const fst = exception as { statusCode?: number; code?: string; message?: string };
  if (typeof fst?.statusCode === 'number' && fst.statusCode >= 400 && fst.statusCode < 500) {
    const status = fst.statusCode;
    if (status === 415) return { status, body: { error: 'request body must be application/json', code: 'unsupported_media_type' }, headers };
    if (status === 413) return { status, body: { error: 'request body is too large (limit 10 MiB)', code: 'payload_too_large' }, headers };
    if (status === 400) return { status, body: { error: `invalid JSON body: ${fst.message ?? ''}`.trim(), code: 'invalid_json' }, headers };
    // any other Fastify error (FST_ERR_*) still answers in the Strata shape with a §1.10 code
    return { status, body: { error: fst.message ?? 'bad request', code: DEFAULT_CODE_BY_STATUS[status] ?? 'invalid_field' }, headers };
  }
  const requestId = (req as unknown as { strata?: { request_id?: string } }).strata?.request_id;
  log.error(`unhandled error on ${req.method} ${req.url.split('?')[0]} [${requestId}]: ${(exception as Error)?.stack ?? String(exception)}`);
  return { status: 500, body: { error: 'internal error', code: 'internal_error', request_id: requestId }, headers };
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

/**
 * An empty body is read as {} so that routes without a required field accept it (REFERENCE
 * §1.1); on a route whose {} then lacks a required field (or its `action`), the empty body is
 * a body that does not parse: 400 invalid_json (§1.10), the same on every route.
 */
function emptyBodyLacksRequiredField(err: DomainError, req: FastifyRequest): boolean {
  if (err.status !== 400 || (err.code !== 'missing_field' && err.code !== 'unknown_action')) return false;
  return BODY_METHODS.has(req.method) && isEmptyJsonBody(req.body);
}
