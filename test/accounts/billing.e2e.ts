import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, request, signUp } from '../support/http';
import { FixedClock } from '@strata/domain/time';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describe('plans, subscription and usage', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ planLimits: { free: { nodes: 3 } } });
  });
  afterAll(() => t.close());

  it('GET /v1/billing/plans is public and lists the four plans with their limits', async () => {
    const r = await request(t.url, 'GET', '/v1/billing/plans');
    expect(r.status).toBe(200);
    expect(r.body.map((p: { id: string }) => p.id)).toEqual(['free', 'pro', 'team', 'enterprise']);
    for (const p of r.body) {
      expect(Object.keys(p.limits).sort()).toEqual(['agent_credits_per_month', 'agents', 'concurrent_runs', 'ingestion_credits_per_month', 'managed_agents', 'mcp_connections', 'nodes', 'requests_per_minute', 'schedules']);
    }
    expect(r.body[0]).toMatchObject({ name: 'Free', limits: { nodes: 3, requests_per_minute: 600, managed_agents: false } });
    expect(r.body[1]).toMatchObject({ name: 'Pro', limits: { managed_agents: true, agents: 5, agent_credits_per_month: 10_000, concurrent_runs: 3, schedules: 20, mcp_connections: 10 } });
    expect(r.body[0].limits.mcp_connections).toBe(2);
    expect(r.body[3].limits).toMatchObject({ nodes: null, mcp_connections: null });
  });

  it('subscription: free by default; subscribe changes the plan at once (an event), owners/admins only', async () => {
    const s = await signUp(t.url);
    const sub = await api(t.url, s.access_token).get('/v1/billing/subscription');
    expect(sub.status).toBe(200);
    expect(sub.body).toMatchObject({ org_id: s.org_id, plan: 'free', plan_name: 'Free', status: 'active', changed_at: null });
    expect(sub.body.current_period_start).toMatch(ISO);
    expect(sub.body.current_period_end).toMatch(ISO);

    const up = await api(t.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' });
    expect(up.status).toBe(200);
    expect(up.body).toMatchObject({ plan: 'pro', changed: true });
    expect(up.body.changed_at).toMatch(ISO);
    expect((await api(t.url, s.access_token).get('/v1/billing/subscription')).body.plan).toBe('pro');
    expect((await api(t.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).body.changed).toBe(false);

    const bad = await api(t.url, s.access_token).post('/v1/billing/subscribe', { plan: 'platinum' });
    expect([bad.status, bad.body.code, bad.body.field]).toEqual([400, 'invalid_field', 'plan']);
    const missing = await api(t.url, s.access_token).post('/v1/billing/subscribe', {});
    expect([missing.status, missing.body.code, missing.body.field]).toEqual([400, 'missing_field', 'plan']);

    const m = await signUp(t.url);
    await api(t.url, s.access_token).post(`/v1/orgs/${s.org_id}/members`, { email: m.email, role: 'member' });
    const byMember = await api(t.url, m.access_token, { org: s.org_id }).post('/v1/billing/subscribe', { plan: 'free' });
    expect([byMember.status, byMember.body.code, byMember.body.required_role]).toEqual([403, 'insufficient_role', 'admin']);
    expect((await api(t.url, m.access_token, { org: s.org_id }).get('/v1/billing/subscription')).body.plan).toBe('pro');
  });

  it('a user who left every organization: subscription answers 403 forbidden, as usage does', async () => {
    const s = await signUp(t.url);
    const other = await signUp(t.url);
    expect((await api(t.url, s.access_token).post(`/v1/orgs/${s.org_id}/members`, { email: other.email, role: 'owner' })).status).toBe(201);
    expect((await api(t.url, s.access_token).delete(`/v1/orgs/${s.org_id}/members/${s.user_id}`)).status).toBe(200);
    const sub = await api(t.url, s.access_token).get('/v1/billing/subscription');
    expect([sub.status, sub.body]).toEqual([403, { error: 'you are not a member of any organization', code: 'forbidden' }]);
    const usage = await api(t.url, s.access_token).get('/v1/usage');
    expect([usage.status, usage.body.code]).toEqual([403, 'forbidden']);
  });

  it('node limit: over it, 403 plan_limit_reached naming the limit; nothing written; upgrading lifts it at once', async () => {
    const s = await signUp(t.url);
    const key = await createApiKey(t.url, s.access_token);
    const c = api(t.url, key.key);
    for (let i = 0; i < 3; i++) expect((await c.post('/node', { label: `n${i}`, node_type: 'Concept' })).status).toBe(201);
    const over = await c.post('/node', { label: 'too many', node_type: 'Concept' });
    expect(over.status).toBe(403);
    expect(over.body).toMatchObject({ code: 'plan_limit_reached', limit: 'nodes', max: 3, current: 3, plan: 'free' });
    expect(over.body.error).toMatch(/nodes/);
    expect((await c.get('/nodes')).body.items).toHaveLength(3);

    // a tombstoned node frees a slot
    const first = (await c.get('/nodes')).body.items[0].uid;
    expect((await c.delete(`/node/${first}`)).status).toBe(200);
    expect((await c.post('/node', { label: 'fits again', node_type: 'Concept' })).status).toBe(201);
    expect((await c.post('/node', { label: 'too many again', node_type: 'Concept' })).status).toBe(403);

    // the cached plan of the key follows the upgrade at once
    expect((await api(t.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    expect((await c.post('/node', { label: 'on pro', node_type: 'Concept' })).status).toBe(201);
    const usage = await c.get('/v1/usage');
    expect(usage.body).toMatchObject({ plan: 'pro', nodes: { used: 4 } });
  });

  it('concurrent creates never exceed the limit', async () => {
    const s = await signUp(t.url);
    const key = await createApiKey(t.url, s.access_token);
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => api(t.url, key.key).post('/node', { label: `c${i}`, node_type: 'Concept' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(7);
    expect((await api(t.url, key.key).get('/nodes')).body.items).toHaveLength(3);
  });

  it('GET /v1/usage: counts for the current organization (API key or JWT)', async () => {
    const s = await signUp(t.url);
    const key = await createApiKey(t.url, s.access_token);
    await api(t.url, key.key).post('/node', { label: 'a', node_type: 'Concept' });
    const r = await api(t.url, key.key).get('/v1/usage');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      org_id: s.org_id,
      plan: 'free',
      nodes: { used: 1, limit: 3 },
      edges: { used: 0 },
      requests: { per_minute_limit: 600 },
      credits: { used: 0, limit: 100, left: 100 },
      // REFERENCE §17: agents and MCP beside their Free limits
      agents: { active: 0, limit: 0 },
      agent_credits: { used: 0, limit: 0, left: 0, today: 0 },
      runs: { this_period: 0, running: 0, queued: 0, concurrent_limit: 0 },
      schedules: { used: 0, limit: 0 },
      mcp_connections: { used: 0, limit: 2 },
    });
    expect(r.body.requests.this_period).toBeGreaterThanOrEqual(2);
    expect(r.body.period.start).toMatch(ISO);
    expect((await api(t.url, s.access_token).get('/v1/usage')).status).toBe(200);
    expect((await request(t.url, 'GET', '/v1/usage')).status).toBe(401);
  });
});

describe('rate limits', () => {
  it('per credential: 429 rate_limited with Retry-After and X-RateLimit-* headers; other credentials unaffected', async () => {
    const clock = new FixedClock();
    const t = await startTestApp({ rateLimitPerMinute: 5, clock });
    try {
      const s = await signUp(t.url);
      const k1 = await createApiKey(t.url, s.access_token);
      const k2 = await createApiKey(t.url, s.access_token);
      const c = api(t.url, k1.key);
      const first = await c.get('/nodes');
      expect(first.headers.get('x-ratelimit-limit')).toBe('5');
      expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
      const reset = Number(first.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThan(clock.now());
      expect(reset).toBeLessThanOrEqual(clock.now() + 61);
      for (let i = 0; i < 4; i++) expect((await c.get('/nodes')).status).toBe(200);
      const limited = await c.get('/nodes');
      expect(limited.status).toBe(429);
      expect(limited.body).toMatchObject({ code: 'rate_limited' });
      const retry = Number(limited.headers.get('retry-after'));
      expect(retry).toBeGreaterThanOrEqual(1);
      expect(retry).toBeLessThanOrEqual(60);
      expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await api(t.url, k2.key).get('/nodes')).status).toBe(200);
      // health is never limited
      expect((await request(t.url, 'GET', '/health')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('an override for every plan is the limit plans, subscription and usage show', async () => {
    const t = await startTestApp({ rateLimitPerMinute: 7, planLimits: { pro: { requests_per_minute: 100 } } });
    try {
      const plans = (await request(t.url, 'GET', '/v1/billing/plans')).body;
      expect(plans.map((p: { limits: { requests_per_minute: number } }) => p.limits.requests_per_minute)).toEqual([7, 7, 7, 7]);
      const s = await signUp(t.url);
      const sub = await api(t.url, s.access_token).get('/v1/billing/subscription');
      expect(sub.body.limits.requests_per_minute).toBe(7);
      const usage = await api(t.url, s.access_token).get('/v1/usage');
      expect([usage.body.requests.per_minute_limit, usage.headers.get('x-ratelimit-limit')]).toEqual([7, '7']);
    } finally {
      await t.close();
    }
  });

  it('by plan when not overridden', async () => {
    const t = await startTestApp({ planLimits: { free: { requests_per_minute: 3 }, pro: { requests_per_minute: 100 } } });
    try {
      const s = await signUp(t.url);
      const k = await createApiKey(t.url, s.access_token);
      expect((await api(t.url, k.key).get('/nodes')).headers.get('x-ratelimit-limit')).toBe('3');
      await api(t.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' });
      expect((await api(t.url, k.key).get('/nodes')).headers.get('x-ratelimit-limit')).toBe('100');
    } finally {
      await t.close();
    }
  });
});
