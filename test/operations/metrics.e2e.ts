import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { api, signUpWithKey } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';

type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[] };

const TOKEN = 'metrics-token-0123456789abcdef';

async function scrape(t: TestApp, auth?: string): Promise<{ status: number; families: Map<string, Family>; text: string }> {
  const res = await fetch(`${t.url}/metrics`, { headers: auth ? { authorization: auth } : {} });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, families: new Map(), text };
  const families = new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
  return { status: res.status, families, text };
}

describe('GET /metrics', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('is absent unless an operator turns it on', async () => {
    t = await startTestApp();
    expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
  });

  it('with a token, answers 401 without it and with a wrong one, and never echoes it', async () => {
    t = await startTestApp({ metrics: 'token', metricsToken: TOKEN });
    const none = await scrape(t);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).code).toBe('unauthorized');
    const wrong = await scrape(t, `Bearer ${TOKEN.slice(0, -1)}x`);
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain(TOKEN);
    expect((await scrape(t, `Bearer ${TOKEN}`)).status).toBe(200);
  });

  it('after traffic, parses as Prometheus text and holds the HTTP, log, projection and WAL families with bounded labels', async () => {
    t = await startTestApp({ metrics: 'public' });
    const s = await signUpWithKey(t.url);
    const c = api(t.url, s.key);
    const uids: string[] = [];
    for (let i = 0; i < 3; i++) uids.push((await c.post('/node', { label: `metered ${i}`, node_type: 'Idea' })).body.uid);
    for (const uid of uids) expect((await c.get(`/node/${uid}`)).status).toBe(200);
    expect((await c.get('/node/no-such-node')).status).toBe(404);

    const { status, families, text } = await scrape(t);
    expect(status).toBe(200);
    const requests = families.get('strata_http_requests_total')!;
    const reads = requests.metrics.filter((m) => m.labels?.route === '/node/:uid' && m.labels.method === 'GET');
    expect(reads.find((m) => m.labels!.status === '200')!.value).toBe('3');
    expect(reads.find((m) => m.labels!.status === '404')!.value).toBe('1');
    // route templates only: no uid ever becomes a label value
    for (const uid of uids) expect(text).not.toContain(uid);
    expect(families.get('strata_http_request_duration_seconds')!.type).toBe('HISTOGRAM');

    expect(Number(families.get('strata_event_log_appended_events_total')!.metrics[0].value)).toBeGreaterThanOrEqual(3);
    expect(Number(families.get('strata_event_log_appended_bytes_total')!.metrics[0].value)).toBeGreaterThan(0);
    const lag = families.get('strata_projection_lag_events')!.metrics;
    expect(lag.map((m) => m.labels!.projection)).toEqual(expect.arrayContaining(['graph', 'text', 'accounts']));
    for (const m of lag) expect(m.value).toBe('0');
    const head = Number(families.get('strata_event_log_head_position')!.metrics[0].value);
    for (const m of families.get('strata_projection_position')!.metrics) expect(Number(m.value)).toBe(head);
    expect(families.get('strata_sqlite_wal_bytes')!.metrics.map((m) => m.labels!.database).sort()).toEqual(['events', 'projections']);
    expect(families.has('strata_process_resident_memory_bytes')).toBe(true);
  });
});

describe('liveness and readiness', () => {
  it('live and ready answer 200 on a running service; ready turns 503 while it drains', async () => {
    const t = await startTestApp();
    try {
      expect((await fetch(`${t.url}/health/live`)).status).toBe(200);
      const ready = await fetch(`${t.url}/health/ready`);
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
    } finally {
      await t.close();
    }
  });
});
