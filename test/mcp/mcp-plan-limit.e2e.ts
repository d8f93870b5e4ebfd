import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { ToolServer, startToolServer } from './support/tool-server';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * REFERENCE §17: the plan caps the connections that are not disconnected (Free 2, Pro 10,
 * overridable through STRATA_PLAN_LIMITS); over it, 403 `plan_limit_reached` and nothing is
 * written; GET /v1/usage counts them beside the limit.
 */
describe('MCP connections: the plan limit and usage', () => {
  let t: TestApp;
  let server: ToolServer;

  beforeAll(async () => {
    const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
    t = await startTestApp({ clock, env: { STRATA_MCP_ALLOW_PRIVATE: 'true' }, planLimits: { pro: { mcp_connections: 3 } } });
    server = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.' }] });
  });
  afterAll(async () => {
    await server?.close();
    await t?.close();
  });

  it('Free allows two live connections: the third is refused, nothing written; a disconnect frees a place', async () => {
    const s = await signUp(t.url);
    const o = api(t.url, s.access_token);
    const create = (name: string) => o.post('/v1/mcp/connections', { name, url: server.url, auth: { type: 'none' } });
    const first = await create('One');
    expect(first.status).toBe(201);
    expect((await create('Two')).status).toBe(201);

    const usage = await o.get('/v1/usage');
    expect(usage.body.mcp_connections).toEqual({ used: 2, limit: 2 });

    const seen = server.seenMethods.length;
    const over = await create('Three');
    expect([over.status, over.body.code, over.body.limit, over.body.max, over.body.current, over.body.plan]).toEqual([403, 'plan_limit_reached', 'mcp_connections', 2, 2, 'free']);
    // refused before the server is contacted, and nothing written
    expect(server.seenMethods.length).toBe(seen);
    const list = await o.get('/v1/mcp/connections');
    expect(list.body.items.map((c: { name: string }) => c.name).sort()).toEqual(['One', 'Two']);

    expect((await o.delete(`/v1/mcp/connections/${first.body.id}`)).status).toBe(200);
    expect((await o.get('/v1/usage')).body.mcp_connections).toEqual({ used: 1, limit: 2 });
    const again = await create('Three');
    expect(again.status).toBe(201);
    expect((await o.get('/v1/usage')).body.mcp_connections).toEqual({ used: 2, limit: 2 });
  });

  it('upgrading lifts the limit at once (here overridden to 3 on Pro); a downgrade keeps the existing ones but refuses new ones', async () => {
    const s = await signUp(t.url);
    const o = api(t.url, s.access_token);
    const create = (name: string) => o.post('/v1/mcp/connections', { name, url: server.url, auth: { type: 'none' } });
    expect((await create('A')).status).toBe(201);
    expect((await create('B')).status).toBe(201);
    expect((await create('C')).status).toBe(403);

    expect((await o.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    expect((await create('C')).status).toBe(201);
    const full = await create('D');
    expect([full.status, full.body.code, full.body.max, full.body.current, full.body.plan]).toEqual([403, 'plan_limit_reached', 3, 3, 'pro']);

    // down to Free: the three stay (above the lower limit), only new creations are refused
    expect((await o.post('/v1/billing/subscribe', { plan: 'free' })).status).toBe(200);
    const key = await createApiKey(t.url, s.access_token);
    expect((await api(t.url, key.key).get('/v1/usage')).body.mcp_connections).toEqual({ used: 3, limit: 2 });
    expect((await o.get('/v1/usage')).body.mcp_connections).toEqual({ used: 3, limit: 2 });
    expect((await o.get('/v1/mcp/connections')).body.items).toHaveLength(3);
    const refused = await o.post('/v1/mcp/connections', { name: 'E', url: server.url, auth: { type: 'none' } });
    expect([refused.status, refused.body.code, refused.body.max, refused.body.current]).toEqual([403, 'plan_limit_reached', 2, 3]);
  });

  it('the limit counts per organization', async () => {
    const a = api(t.url, (await signUp(t.url)).access_token);
    const b = api(t.url, (await signUp(t.url)).access_token);
    for (const n of ['X', 'Y']) expect((await a.post('/v1/mcp/connections', { name: n, url: server.url, auth: { type: 'none' } })).status).toBe(201);
    expect((await b.post('/v1/mcp/connections', { name: 'X', url: server.url, auth: { type: 'none' } })).status).toBe(201);
    expect((await b.get('/v1/usage')).body.mcp_connections).toEqual({ used: 1, limit: 2 });
  });
});
