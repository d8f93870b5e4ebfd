import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PUBLIC_ROUTE_CONFIG } from '@strata/auth/route-tags';
import { StrataMetrics } from '@strata/observability';
import type { StrataConfig } from '@strata/platform/config/strata-config';

const METHODS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

/**
 * HTTP metrics for every answered request (the Nest routes and the fast lane alike), and
 * `GET /metrics` for Prometheus, unless STRATA_METRICS is off. Labels are the route template Fastify matched, never the raw
 * path: `/node/:uid` stays one series however many nodes there are.
 */
export function installMetricsEndpoint(fastify: FastifyInstance, metrics: StrataMetrics, config: Pick<StrataConfig, 'metrics' | 'metricsToken'>): void {
  // nobody can read them when off: requests then pay nothing for them
  if (config.metrics === 'off') return;
  fastify.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done) => {
    metrics.recordHttp(req.routeOptions?.url ?? 'unmatched', METHODS.has(req.method) ? req.method : 'OTHER', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  const token = config.metricsToken === null ? null : Buffer.from(`Bearer ${config.metricsToken}`);
  fastify.get('/metrics', { config: { [PUBLIC_ROUTE_CONFIG]: true } }, async (req, reply) => {
    if (config.metrics === 'token' && !sameSecret(req.headers.authorization, token)) {
      return reply
        .code(401)
        .header('WWW-Authenticate', 'Bearer realm="metrics"')
        .send({ error: 'GET /metrics needs Authorization: Bearer <STRATA_METRICS_TOKEN>', code: 'unauthorized' });
    }
    const { contentType, body } = await metrics.render();
    return reply.header('Content-Type', contentType).send(body);
  });
}

function sameSecret(given: string | undefined, expected: Buffer | null): boolean {
  if (!given || !expected) return false;
  const g = Buffer.from(given);
  return g.length === expected.length && timingSafeEqual(g, expected);
}
