import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger as JsonLog } from 'pino';
import type { StrataRequestState } from '@strata/auth/auth-context';

/**
 * One JSON line per answered request: request id, who (the kind of credential, never the
 * credential), route template, method, status and duration. Never the raw path or query
 * (they may carry codes and tokens), never a header or a body.
 */
export function installRequestLog(fastify: FastifyInstance, log: JsonLog): void {
  // at `warn` and `error` only failures are written: nothing is built for the others
  const infoEnabled = log.isLevelEnabled('info');
  fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done) => {
    const status = reply.statusCode;
    if (status < 500 && !infoEnabled) return done();
    const state = (req as unknown as { strata?: StrataRequestState }).strata;
    const line = {
      msg: 'request',
      request_id: state?.request_id || String(req.id),
      principal: state?.auth?.credential ?? 'anonymous',
      method: req.method,
      route: req.routeOptions?.url ?? 'unmatched',
      status,
      duration_ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (status >= 500) log.error(line);
    else log.info(line);
    done();
  });
}
