import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { startToolServer } from '../mcp/support/tool-server';
import { api, createApiKey, signUp, signUpWithKey } from '../support/http';
import { startTestApp, TestApp } from '../support/test-app';
import { at } from '@strata/domain/testing/fixed-time';

type Family = { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[] };

const TOKEN = 'metrics-token-0123456789abcdef';

async function scrape(t: TestApp, auth?: string): Promise<{ status: number; families: Map<string, Family>; text: string }> {
  const res = await fetch(`${t.url}/metrics`, { headers: auth ? { authorization: auth } : {} });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, families: new Map(), text };
  const families = new Map((parsePrometheusTextFormat(text) as Family[]).map((f) => [f.name, f]));
  return { status: res.status, families, text };
}

/**
 * The sum of the samples of `name` whose labels include `labels`, read from the text: the
 * parser keeps neither the labels nor the count of a histogram's series.
 */
function sampleOf(text: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[3]);
  }
  return sum;
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

describe('GET /metrics per organization', () => {
  let t: TestApp;
  afterEach(async () => t?.close());

  it('names no organization unless STRATA_METRICS_PER_ORG is on, and then counts each organization apart', async () => {
    t = await startTestApp({ metrics: 'public' });
    const quiet = await signUpWithKey(t.url);
    expect((await api(t.url, quiet.key).post('/node', { label: 'unlabelled', node_type: 'Idea' })).status).toBe(201);
    const off = await scrape(t);
    expect(off.families.has('strata_org_http_requests_total')).toBe(false);
    expect(off.text).not.toContain(quiet.org_id);
    await t.close();

    t = await startTestApp({ metrics: 'public', metricsPerOrg: true });
    const a = await signUpWithKey(t.url);
    const b = await signUpWithKey(t.url);
    const count = (text: string, labels: Record<string, string>) => sampleOf(text, 'strata_org_http_requests_total', labels);
    const before = (await scrape(t)).text;
    for (let i = 0; i < 2; i++) expect((await api(t.url, a.key).post('/node', { label: `a ${i}`, node_type: 'Idea' })).status).toBe(201);
    expect((await api(t.url, b.key).get('/node/no-such-node')).status).toBe(404);
    const on = await scrape(t);
    expect(count(on.text, { org: a.org_id, method: 'POST', status: '201' }) - count(before, { org: a.org_id, method: 'POST', status: '201' })).toBe(2);
    expect(count(on.text, { org: b.org_id, method: 'GET', status: '404' }) - count(before, { org: b.org_id, method: 'GET', status: '404' })).toBe(1);
    expect(count(on.text, { org: b.org_id, method: 'POST' }) - count(before, { org: b.org_id, method: 'POST' })).toBe(0);
    expect(count(on.text, { org: a.org_id, method: 'GET' })).toBe(0);
    // the route-template family stays free of organization ids either way
    for (const line of on.text.split('\n').filter((l) => l.startsWith('strata_http_requests_total'))) expect(line).not.toContain(a.org_id);
  });
});

describe('GET /metrics: jobs, model calls, MCP calls, live subscribers and checkpoints', () => {
  let t: TestApp;
  afterAll(async () => t?.close());

  it('after an ingestion and an MCP inspect, holds the job, MCP, live and checkpoint families with bounded labels', async () => {
    const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    t = await startTestApp({
      clock,
      metrics: 'public',
      llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm,
      env: { STRATA_MCP_ALLOW_PRIVATE: 'true' },
    });
    const s = await signUp(t.url);
    const c = api(t.url, (await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] })).key);
    const queued = await c.post('/ingest/document', { content: 'Metered\n\nAda Lovelace wrote notes on the Analytical Engine.', chunk_size: 100, chunk_overlap: 0 });
    expect(queued.status).toBe(202);
    const job = await eventually(
      async () => {
        const j = await c.get(`/jobs/${queued.body.job_id}`);
        return ['completed', 'failed', 'cancelled'].includes(j.body.status) ? j.body : null;
      },
      { what: 'the ingestion job finished', timeoutMs: 20_000 },
    );
    expect(job.status).toBe('completed');

    const tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.' }] });
    try {
      expect((await api(t.url, s.access_token).post('/v1/mcp/inspect', { url: tools.url })).status).toBe(200);
    } finally {
      await tools.close();
    }

    // the job reads completed once its handler recorded it, the runner settles right after; the
    // checkpoint worker copies the writes above within a few of its 200 ms rounds
    const ingested = { kind: 'ingest_document', outcome: 'completed' };
    const { families, text } = await eventually(
      async () => {
        const r = await scrape(t);
        return sampleOf(r.text, 'strata_sqlite_checkpoint_duration_seconds_count', {}) > 0 && sampleOf(r.text, 'strata_job_duration_seconds_count', ingested) > 0 ? r : null;
      },
      { what: 'the job and a checkpoint were measured', timeoutMs: 10_000 },
    );
    expect(families.get('strata_job_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(sampleOf(text, 'strata_job_duration_seconds_count', ingested)).toBe(1);
    // nothing active any more: the queue gauges are there, with no series left
    expect(families.get('strata_job_queue_jobs')!.type).toBe('GAUGE');
    expect(families.get('strata_job_queue_oldest_age_seconds')!.type).toBe('GAUGE');
    expect(families.has('strata_job_runner_running_jobs')).toBe(true);

    const mcp = families.get('strata_mcp_calls_total')!.metrics;
    const listed = mcp.filter((m) => m.labels!.connection === 'inspect' && m.labels!.method === 'tools/list');
    expect(listed.reduce((n, m) => n + Number(m.value), 0)).toBeGreaterThanOrEqual(1);
    for (const m of mcp) expect(['ok', 'error']).toContain(m.labels!.outcome);
    expect(families.get('strata_mcp_call_duration_seconds')!.type).toBe('HISTOGRAM');
    // the server's URL (its port) is never a label value
    expect(text).not.toContain('127.0.0.1');

    const live = families.get('strata_live_subscribers')!.metrics;
    expect(Object.fromEntries(live.map((m) => [m.labels!.transport, m.value]))).toEqual({ sse: '0', websocket: '0' });
    expect(families.get('strata_sqlite_checkpoint_duration_seconds')!.type).toBe('HISTOGRAM');
    const pages = families.get('strata_sqlite_checkpointed_pages_total')!.metrics;
    expect(pages.length).toBeGreaterThan(0);
    for (const m of pages) expect(['events', 'projections']).toContain(m.labels!.database);
    expect(families.get('strata_model_calls_total')!.type).toBe('COUNTER');
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
