import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StrataRequestState } from '@strata/auth/auth-context';
import { PUBLIC_ROUTE_CONFIG } from '@strata/auth/route-tags';
import { METRICS_UNAUTHORIZED, StrataMetrics, metricsReadAllowed } from '@strata/observability';
import type { StrataConfig } from '@strata/platform/config/strata-config';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * HTTP metrics for every answered request (the Nest routes and the fast lane alike), and
 * `GET /metrics` for Prometheus, unless STRATA_METRICS is off. Labels are the route template Fastify matched, never the raw
 * path: `/node/:uid` stays one series however many nodes there are.
 */
export function installMetricsEndpoint(fastify: FastifyInstance, metrics: StrataMetrics, config: Pick<StrataConfig, 'metrics' | 'metricsToken' | 'metricsPerOrg'>): void {
  // nobody can read them when off: requests then pay nothing for them
  if (config.metrics === 'off') return;
  const perOrg = config.metricsPerOrg;
  fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done) => {
    const org = perOrg ? (req as unknown as { strata?: StrataRequestState }).strata?.auth?.org_id : undefined;
    metrics.recordHttp(req.routeOptions?.url ?? 'unmatched', METHODS.has(req.method) ? req.method : 'OTHER', reply.statusCode, reply.elapsedTime / 1000, org);
    done();
  });
  fastify.get('/metrics', { config: { [PUBLIC_ROUTE_CONFIG]: true } }, async (req, reply) => {
    if (!metricsReadAllowed(config.metrics, config.metricsToken, req.headers.authorization)) {
      return reply.code(401).header('WWW-Authenticate', 'Bearer realm="metrics"').send(METRICS_UNAUTHORIZED);
    }
    const { contentType, body } = await metrics.render();
    return reply.header('Content-Type', contentType).send(body);
  });
}
