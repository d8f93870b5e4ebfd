import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { ConnectionTools } from '@strata/mcp/connections';
import { at } from '@strata/domain/testing/fixed-time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { ToolServer, startToolServer } from './support/tool-server';
import { startPagedToolServer } from './support/paged-tool-server';

/**
 * Approval modes per_tool and on_drift through a real agent run, the tools-per-connection
 * limit, tools/list paging and a tools/list_changed notification (REFERENCE §15.5, §15.8,
 * §15.10): real MCP servers built with the SDK on loopback, real HTTP and auth, a FixedClock.
 */
describe('MCP approval modes, tool limits, paging and list_changed', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  const servers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: { STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
  });
  afterAll(async () => {
    await t?.close();
    for (const s of servers) await s.close();
    await llm?.close();
  });

  async function teamOwner() {
    const s = await signUp(t.url);
    const a = api(t.url, s.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
    return { a, org_id: s.org_id };
  }

  async function twoTools(): Promise<ToolServer> {
    const s = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }, { name: 'wipe', description: 'Deletes everything.', destructive: true }] });
    servers.push(s);
    return s;
  }

  /** a connection to `server` and an agent granted all its tools */
  async function connectAgent(a: Api, name: string, url: string, connection: Record<string, unknown>) {
    const c = await a.post('/v1/mcp/connections', { name, url, auth: { type: 'none' }, ...connection });
    expect(c.status).toBe(201);
    const registry = (await a.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[];
    const agent = (await a.post('/v1/agents', { name: `${name} agent`, tools: ['strata_get_node'] })).body;
    for (const tool of registry) expect((await a.put(`/v1/agents/${agent.id}/tool-grants/${tool.affordance_uid}`, {})).status).toBe(201);
    const model = (n: string) => registry.find((x) => x.name === n)!.model_name;
    return { connection: c.body, agent, model };
  }

  /** a run whose model calls `modelName`; resolves with the call's approval (or null) once the run waits or ends */
  async function callOnce(a: Api, agentId: string, modelName: string, callId: string) {
    llm.enqueue({ type: 'tool_calls', calls: [{ id: callId, name: modelName, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'Done.' });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agentId, message: 'go' })).body;
    return eventually(async () => {
      const pending = (await a.get(`/v1/mcp/approvals?session_id=${created.id}&status=pending`)).body.items;
      if (pending.length) return { approval: pending[0], sid: created.id as string };
      const s = (await a.get(`/v1/agents/sessions/${created.id}`)).body;
      const run = s.current_run?.id === created.run_id ? s.current_run : s.last_run?.id === created.run_id ? s.last_run : null;
      return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? { approval: null, sid: created.id as string, run } : null;
    }, { what: `the call ${callId} waited for approval or its run ended` });
  }

  async function toolResult(a: Api, sid: string, callId: string) {
    const items = (await a.get(`/v1/agents/sessions/${sid}/events?limit=1000&types=tool.result`)).body.items as { data: any }[];
    return items.find((e) => e.data.tool_call_id === callId)?.data;
  }

  it('approval_mode per_tool asks only for tools marked always or absent, with reason per_tool; a tool marked never runs at once', async () => {
    const { a } = await teamOwner();
    const server = await twoTools();
    const { agent, model } = await connectAgent(a, 'PerTool', server.url, { approval_mode: 'per_tool', tool_approvals: { add: 'never' } });
    const reg = (await a.get('/v1/mcp/registry')).body.tools as { name: string; approval: string | null; requires_approval: boolean }[];
    expect(reg.map((x) => [x.name, x.approval, x.requires_approval])).toEqual([['add', 'never', false], ['wipe', null, true]]);

    const free = await callOnce(a, agent.id, model('add'), 'p1');
    expect(free.approval).toBeNull();
    expect(free.run.status).toBe('completed');
    expect(await toolResult(a, free.sid, 'p1')).toMatchObject({ status: 'ok', result: '5' });

    const gated = await callOnce(a, agent.id, model('wipe'), 'p2');
    expect(gated.approval).toMatchObject({ status: 'pending', tool_name: 'wipe', reasons: [{ source: 'per_tool' }] });
    expect((await a.post(`/v1/mcp/approvals/${gated.approval.id}/resolve`, { decision: 'deny' })).status).toBe(200);

    // marking it always keeps asking; marking it never stops asking
    await a.patch(`/v1/mcp/connections/${gated.approval.connection_id}`, { tool_approvals: { add: 'always', wipe: 'never' } });
    const now = (await a.get('/v1/mcp/registry')).body.tools as { name: string; requires_approval: boolean }[];
    expect(now.map((x) => [x.name, x.requires_approval])).toEqual([['add', true], ['wipe', false]]);
  });

  it('approval_mode on_drift asks for a tool whose definition drifted since the baseline (reason drift) and not for an unchanged one, until acknowledged', async () => {
    const { a } = await teamOwner();
    const server = await twoTools();
    const { connection, agent, model } = await connectAgent(a, 'Drifty', server.url, { approval_mode: 'on_drift' });
    // the baseline: nothing needs approval
    const unchanged = await callOnce(a, agent.id, model('wipe'), 'd0');
    expect(unchanged.approval).toBeNull();

    server.tools = [server.tools[0], { ...server.tools[1], description: 'Deletes everything, now for real.' }];
    clock.advance(60);
    const synced = await a.post(`/v1/mcp/connections/${connection.id}/sync`, {});
    expect(synced.status).toBe(200);
    expect(synced.body.sync).toMatchObject({ added: [], changed: ['wipe'], removed: [] });

    const still = await callOnce(a, agent.id, model('add'), 'd1');
    expect(still.approval).toBeNull();
    expect(await toolResult(a, still.sid, 'd1')).toMatchObject({ status: 'ok', result: '5' });

    const drifted = await callOnce(a, agent.id, model('wipe'), 'd2');
    expect(drifted.approval).toMatchObject({ status: 'pending', tool_name: 'wipe', reasons: [{ source: 'drift' }] });
    expect((await a.post(`/v1/mcp/approvals/${drifted.approval.id}/resolve`, { decision: 'allow' })).status).toBe(200);
    expect(await eventually(async () => (await toolResult(a, drifted.sid, 'd2')) ?? null, { what: 'the approved call ran' })).toMatchObject({ status: 'ok' });

    // acknowledged, the drifted tool runs without asking again
    expect((await a.patch(`/v1/mcp/connections/${connection.id}`, { acknowledge_drift: ['wipe'] })).status).toBe(200);
    const acked = await callOnce(a, agent.id, model('wipe'), 'd3');
    expect(acked.approval).toBeNull();
  });

  it('too_many_tools: a server listing more than 500 tools is refused at create (422) and fails a sync (502 mcp_sync_failed, connection error)', async () => {
    const { a } = await teamOwner();
    const many = Array.from({ length: 501 }, (_, i) => `t${String(i).padStart(3, '0')}`);
    const server = await startPagedToolServer({ names: many, pageSize: 100 });
    servers.push(server);
    const refused = await a.post('/v1/mcp/connections', { name: 'Crowded', url: server.url, auth: { type: 'none' } });
    expect([refused.status, refused.body.code]).toEqual([422, 'mcp_check_failed']);
    expect(refused.body.checks.find((c: { name: string }) => c.name === 'tools')).toMatchObject({ status: 'fail' });
    expect(refused.body.checks.find((c: { name: string }) => c.name === 'tools').detail).toContain('too_many_tools');
    expect((await a.get('/v1/mcp/connections')).body.items).toEqual([]);

    // exactly 500 is allowed; one more at the next sync fails it
    server.names = many.slice(0, 500);
    const ok = await a.post('/v1/mcp/connections', { name: 'Crowded', url: server.url, auth: { type: 'none' } });
    expect(ok.status).toBe(201);
    server.names = many;
    const failed = await a.post(`/v1/mcp/connections/${ok.body.id}/sync`, {});
    expect([failed.status, failed.body.code]).toEqual([502, 'mcp_sync_failed']);
    expect(failed.body.connection).toMatchObject({ status: 'error', last_error: { code: 'too_many_tools' } });
    // the registry keeps the last good listing
    expect((await a.get(`/v1/mcp/registry?connection_id=${ok.body.id}`)).body.tools).toHaveLength(500);
  });

  it('tools/list paging: every page a server returns with nextCursor is read into the registry', async () => {
    const { a } = await teamOwner();
    const names = Array.from({ length: 7 }, (_, i) => `p${i}`);
    const server = await startPagedToolServer({ names, pageSize: 3 });
    servers.push(server);
    const c = await a.post('/v1/mcp/connections', { name: 'Paged', url: server.url, auth: { type: 'none' } });
    expect(c.status).toBe(201);
    expect((await a.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools.map((x: { name: string }) => x.name)).toEqual(names);
    server.seenCursors.length = 0;
    const synced = await a.post(`/v1/mcp/connections/${c.body.id}/sync`, {});
    expect(synced.body.sync).toMatchObject({ tools_count: 7, added: [], changed: [], removed: [] });
    expect(server.seenCursors).toEqual([undefined, 'page-3', 'page-6']);
  });

  it('tools/list paging stops at 50 pages: a server that pages for ever fails inspect, create (422) and a sync (502 protocol_error), and the registry keeps its last listing', async () => {
    const { a } = await teamOwner();
    const names = Array.from({ length: 60 }, (_, i) => `e${String(i).padStart(2, '0')}`);
    const server = await startPagedToolServer({ names, pageSize: 1 });
    servers.push(server);
    server.endless = true;
    const inspected = await a.post('/v1/mcp/inspect', { url: server.url });
    expect(inspected.status).toBe(200);
    expect(inspected.body.ok).toBe(false);
    expect(inspected.body.checks.find((c: { name: string }) => c.name === 'tools')).toEqual({ name: 'tools', status: 'fail', detail: 'tools/list failed: tools/list was still paging after 50 pages' });
    // 50 pages asked for, no more
    expect(server.seenCursors).toHaveLength(50);
    const refused = await a.post('/v1/mcp/connections', { name: 'Endless', url: server.url, auth: { type: 'none' } });
    expect([refused.status, refused.body.code, refused.body.checks.find((c: { name: string }) => c.name === 'tools').status]).toEqual([422, 'mcp_check_failed', 'fail']);

    // a server that ends within 50 pages is read whole; paging for ever later fails the sync
    server.endless = false;
    server.names = names.slice(0, 50);
    const c = await a.post('/v1/mcp/connections', { name: 'Endless', url: server.url, auth: { type: 'none' } });
    expect([c.status, c.body.tools_count]).toEqual([201, 50]);
    server.endless = true;
    server.seenCursors.length = 0;
    const failed = await a.post(`/v1/mcp/connections/${c.body.id}/sync`, {});
    expect([failed.status, failed.body.code]).toEqual([502, 'mcp_sync_failed']);
    expect(failed.body.connection).toMatchObject({ status: 'error', last_error: { code: 'protocol_error', message: 'tools/list failed: tools/list was still paging after 50 pages' } });
    expect(server.seenCursors).toHaveLength(50);
    // nothing read as removed: the registry keeps the last whole listing
    expect((await a.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools).toHaveLength(50);
  });

  it('notifications/tools/list_changed on a tool call response stream triggers a sync that records the new tool', async () => {
    const { a, org_id } = await teamOwner();
    const server = await startPagedToolServer({ names: ['one'], pageSize: 10 });
    servers.push(server);
    const c = await a.post('/v1/mcp/connections', { name: 'Changing', url: server.url, auth: { type: 'none' } });
    expect(c.status).toBe(201);
    server.names = ['one', 'two'];
    const tools = t.app.get(ConnectionTools);
    server.announceListChanged = true;
    const listsBefore = server.seenCursors.length;
    expect(await tools.callTool(org_id, c.body.id, 'one', {})).toMatchObject({ ok: true, text: 'called one' });
    const reg = await eventually(async () => {
      const r = (await a.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body;
      return r.tools.length === 2 ? r : null;
    }, { what: 'the sync after list_changed' });
    expect(reg.tools.map((x: { name: string }) => x.name)).toEqual(['one', 'two']);
    expect(reg.drift_events).toEqual([expect.objectContaining({ tool_name: 'two', kind: 'added' })]);
    expect(server.seenCursors.length).toBeGreaterThan(listsBefore);
  });
});
