import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { api, signUpWithKey } from '../support/http';
import { eventually } from '@strata/domain/testing/eventually';
import { startWorker, useServersStack } from './support/servers-mode-app';
import { serveWorkerMetrics, WorkerMetrics } from '../../apps/worker/src/worker-metrics';

type Family = { name: string; metrics: { labels?: Record<string, string>; value?: string }[] };

const TOKEN = 'worker-metrics-token-0123456789';

async function scrape(m: WorkerMetrics, auth?: string): Promise<{ status: number; text: string; families: Map<string, Family> }> {
  const res = await fetch(`${m.url}/metrics`, { headers: auth ? { authorization: auth } : {} });
  const text = await res.text();
  const families = res.status === 200 ? new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f])) : new Map();
  return { status: res.status, text, families };
}

const value = (families: Map<string, Family>, name: string, labels: Record<string, string> = {}) =>
  Number(families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value);

describe('servers mode: the projection worker’s /metrics', () => {
  const stack = useServersStack();

  it('opens no port when metrics are off', async () => {
    expect(await serveWorkerMetrics({ metrics: 'off', metricsToken: null, workerMetricsPort: 0 }, stack.worker.runner)).toBeNull();
  });

  it('under a token, shows each projection’s position and lag, the log head and who holds the lease; a standby reports the same positions', async () => {
    const active = (await serveWorkerMetrics({ metrics: 'token', metricsToken: TOKEN, workerMetricsPort: 0 }, stack.worker.runner, { host: '127.0.0.1', processMetrics: false }))!;
    const standby = startWorker(stack.servers, 'w2');
    const standbyMetrics = (await serveWorkerMetrics({ metrics: 'public', metricsToken: null, workerMetricsPort: 0 }, standby.runner, { host: '127.0.0.1', processMetrics: false }))!;
    try {
      expect((await scrape(active)).status).toBe(401);
      const wrong = await scrape(active, `Bearer ${TOKEN}x`);
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain(TOKEN);

      const s = await signUpWithKey(stack.replica.url);
      for (let i = 0; i < 3; i++) expect((await api(stack.replica.url, s.key).post('/node', { label: `worker metered ${i}`, node_type: 'Idea' })).status).toBe(201);

      const { families } = await eventually(async () => {
        const r = await scrape(active, `Bearer ${TOKEN}`);
        const lags = r.families.get('strata_projection_lag_events')?.metrics ?? [];
        return lags.length > 0 && lags.every((m: Family['metrics'][number]) => m.value === '0') ? r : null;
      }, { what: 'every projection caught up' });
      const head = value(families, 'strata_event_log_head_position');
      expect(head).toBeGreaterThan(0);
      const positions = families.get('strata_projection_position')!.metrics;
      expect(positions.map((m) => m.labels!.projection)).toEqual(expect.arrayContaining(['graph', 'text']));
      for (const m of positions) expect(Number(m.value)).toBe(head);
      for (const m of families.get('strata_projection_failing')!.metrics) expect(m.value).toBe('0');
      expect(value(families, 'strata_projection_worker_lease_held')).toBe(1);

      const other = await scrape(standbyMetrics);
      expect(other.status).toBe(200);
      expect(value(other.families, 'strata_projection_worker_lease_held')).toBe(0);
      expect(value(other.families, 'strata_projection_position', { projection: 'graph' })).toBe(head);

      expect((await fetch(`${active.url}/elsewhere`)).status).toBe(404);
    } finally {
      await active.close();
      await standbyMetrics.close();
      await standby.stop();
    }
  });
});
