import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { runEnded } from '../support/agent-runs';
import { ModernToolServer, startModernToolServer } from './support/modern-tool-server';

/**
 * Cancellation on the stateless 2026-07-28 revision (REFERENCE §15.5): a tool server built with
 * the v2 server SDK (`createMcpHandler`), which speaks that revision, on loopback. An agent's
 * run interrupted during the server's `tools/call` sends `notifications/cancelled` naming that
 * request (a POST of its own, as the revision has no session) and abandons the call's HTTP
 * request, whose handler the SDK then aborts; the connection stays `active`. A scripted model server, real HTTP and auth.
 */

describe('MCP on the stateless revision: notifications/cancelled when a run is interrupted mid-call', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let tools: ModernToolServer;
  let a: Api;

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    tools = await startModernToolServer();
    t = await startTestApp({ clock: new FixedClock(at('2030-01-01T12:00:00Z')), env: { STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
    const user = await signUp(t.url);
    a = api(t.url, user.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await tools?.close();
    await llm?.close();
  });

  it('the interrupted call is cancelled at the server by its request id; a completed one is not; the connection stays active', async () => {
    const res = await a.post('/v1/mcp/connections', { name: 'Modern tools', url: tools.url, auth: { type: 'none' }, approval_mode: 'never' });
    expect(res.status).toBe(201);
    // negotiated through server/discover: no initialize, no session
    expect(res.body).toMatchObject({ status: 'active', protocol_version: '2026-07-28', server_info: { name: 'modern-tools' } });
    expect(tools.seen.map((m) => m.method)).not.toContain('initialize');
    const registry = (await a.get(`/v1/mcp/registry?connection_id=${res.body.id}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[];
    const agent = (await a.post('/v1/agents', { name: 'Modern caller', tools: ['strata_get_node'] })).body;
    for (const tool of registry) expect((await a.put(`/v1/agents/${agent.id}/tool-grants/${tool.affordance_uid}`, {})).status).toBe(201);
    const model = Object.fromEntries(registry.map((x) => [x.name, x.model_name]));

    // a call that completes: nothing is cancelled
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'a1', name: model.add, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'Five.' });
    const quick = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add 2 and 3' })).body;
    expect((await runEnded(a, quick.id, quick.run_id)).status).toBe('completed');
    const results = (await a.get(`/v1/agents/sessions/${quick.id}/events?limit=1000&types=tool.result`)).body.items;
    expect(results[0].data).toMatchObject({ tool_call_id: 'a1', status: 'ok', result: '5' });

    // a call interrupted while the server runs it
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 's1', name: model.slow, arguments: { a: 1 } }] });
    const from = tools.seen.length;
    const slow = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'take your time' })).body;
    const call = await eventually(() => tools.seen.slice(from).find((m) => m.method === 'tools/call' && m.params?.name === 'slow'), { what: 'the slow call reached the server' });
    expect(call.version).toBe('2026-07-28');
    const stop = await a.post(`/v1/agents/sessions/${slow.id}/interrupt`, {});
    expect(stop.body).toMatchObject({ interrupted: true, run_id: slow.run_id });
    const cancelled = await eventually(() => tools.seen.slice(from).find((m) => m.method === 'notifications/cancelled'), { what: 'notifications/cancelled reached the server' });
    expect(cancelled).toMatchObject({ id: undefined, version: '2026-07-28', params: { requestId: call.id, reason: 'interrupted' } });
    // the call's own request was abandoned: the SDK aborted its handler
    await eventually(() => tools.aborted === 1 || null, { what: 'the handler aborted' });
    expect((await runEnded(a, slow.id, slow.run_id)).status).toBe('cancelled');
    expect(tools.seen.filter((m) => m.method === 'notifications/cancelled')).toHaveLength(1);
    expect((await a.get(`/v1/mcp/connections/${res.body.id}`)).body).toMatchObject({ status: 'active', last_error: null });
  });
});
