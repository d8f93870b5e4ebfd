import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { METRICS_UNAUTHORIZED, StrataMetrics, metricsReadAllowed } from '@strata/observability';
import type { ServerProjectionRunner } from '@strata/projections/server/server-projection-runner';
import type { StrataConfig } from '@strata/platform/config/strata-config';

export interface WorkerMetrics {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The projection worker's own `GET /metrics`: how far each projection it applies trails the
 * log, whether this worker holds the lease, and the process figures. Same STRATA_METRICS
 * rules as the API (off: no port is opened at all). Gauges are read at scrape time from the
 * runner's checkpoints, so a standby worker reports the same positions as the active one.
 */
export async function serveWorkerMetrics(
  cfg: Pick<StrataConfig, 'metrics' | 'metricsToken' | 'workerMetricsPort'>,
  runner: Pick<ServerProjectionRunner, 'status' | 'holding'>,
  opts: { host?: string; port?: number; processMetrics?: boolean } = {},
): Promise<WorkerMetrics | null> {
  if (cfg.metrics === 'off') return null;
  const metrics = new StrataMetrics({ processMetrics: opts.processMetrics });
  const status = () => runner.status();
  metrics.gauge('strata_projection_position', 'Last event-log position applied, per projection', ['projection'], async () =>
    (await status()).map((s) => ({ labels: { projection: s.name }, value: s.checkpoint })),
  );
  metrics.gauge('strata_projection_lag_events', 'Events of the log a projection has not applied yet', ['projection'], async () =>
    (await status()).map((s) => ({ labels: { projection: s.name }, value: s.lag })),
  );
  metrics.gauge('strata_projection_failing', '1 while a projection’s last batch failed (its checkpoint holds the error)', ['projection'], async () =>
    (await status()).map((s) => ({ labels: { projection: s.name }, value: s.last_error ? 1 : 0 })),
  );
  metrics.gauge('strata_event_log_head_position', 'Position of the last event in the log', [], async () => {
    const all = await status();
    return all.length ? [{ value: all[0].head }] : [];
  });
  metrics.gauge('strata_projection_worker_lease_held', '1 while this worker holds the projection lease and applies the log; 0 on a standby', [], () => [
    { value: runner.holding ? 1 : 0 },
  ]);

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'only GET /metrics is served here', code: 'route_not_found' }));
      return;
    }
    if (!metricsReadAllowed(cfg.metrics, cfg.metricsToken, req.headers.authorization)) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer realm="metrics"' }).end(JSON.stringify(METRICS_UNAUTHORIZED));
      return;
    }
    metrics.render().then(
      ({ contentType, body }) => res.writeHead(200, { 'content-type': contentType }).end(body),
      () => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'metrics could not be read', code: 'internal_error' })),
    );
  });
  const host = opts.host ?? '0.0.0.0';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? cfg.workerMetricsPort, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
