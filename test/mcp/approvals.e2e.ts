import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { ToolServer, startToolServer } from './support/tool-server';

/**
 * MCP tools of managed agents and their approvals (REFERENCE §15.10, §16.4, §16.5): a real
 * MCP server built with the SDK on loopback, a scripted OpenAI-protocol model server, real
 * HTTP and auth, and a FixedClock moved for expiry.
 */

interface Org {
  a: Api;
  org_id: string;
  user_id: string;
}

async function teamOwner(url: string): Promise<Org> {
  const s = await signUp(url);
  const a = api(url, s.access_token);
  expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
  return { a, org_id: s.org_id, user_id: s.user_id };
}

async function runEnded(a: Api, sid: string, runId: string) {
  return eventually(async () => {
    const s = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    const run = s.current_run?.id === runId ? s.current_run : s.last_run?.id === runId ? s.last_run : null;
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, { what: `run ${runId} ended` });
}

async function events(a: Api, sid: string, types?: string) {
  return (await a.get(`/v1/agents/sessions/${sid}/events?limit=1000${types ? `&types=${types}` : ''}`)).body.items as { type: string; data: any }[];
}

describe('MCP tools of managed agents, and tool-call approvals', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let tools: ToolServer;
  const clock = new FixedClock(Date.UTC(2030, 0, 1, 12) / 1000);

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }, { name: 'wipe', description: 'Deletes everything.', destructive: true }] });
    t = await startTestApp({ clock, env: { STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
  });
  afterAll(async () => {
    await t?.close();
    await tools?.close();
    await llm?.close();
  });

  /** an organization with a connection in `approval_mode`, an agent granted its `add` tool */
  async function setUp(name: string, connection: Record<string, unknown> = {}) {
    const o = await teamOwner(t.url);
    const c = await o.a.post('/v1/mcp/connections', { name, url: tools.url, auth: { type: 'none' }, ...connection });
    expect(c.status).toBe(201);
    const registry = (await o.a.get(`/v1/mcp/registry?connection_id=${c.body.id}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[];
    const add = registry.find((x) => x.name === 'add')!;
    const agent = (await o.a.post('/v1/agents', { name: `${name} agent`, tools: ['strata_get_node'] })).body;
    expect((await o.a.put(`/v1/agents/${agent.id}/tool-grants/${add.affordance_uid}`, {})).status).toBe(201);
    return { ...o, connection: c.body, add, agent };
  }

  it('an agent granted an MCP tool is offered it and calls it through the connection; the Execution targets its Affordance', async () => {
    const { a, add, agent } = await setUp('Calc', { approval_mode: 'never' });
    expect(add.model_name).toBe('mcp__calc__add');
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'c1', name: 'mcp__calc__add', arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'It is 5.' });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add 2 and 3' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run.status).toBe('completed');
    const offered = llm.requests[llm.requests.length - 2].body.tools as { function: { name: string; description: string } }[];
    const names = offered.map((x) => x.function.name);
    // only the granted tool of the connection
    expect(names).toContain('mcp__calc__add');
    expect(names).not.toContain('mcp__calc__wipe');
    expect(offered.find((x) => x.function.name === 'mcp__calc__add')!.function.description).toBe('[MCP: Calc] Adds two numbers.');
    const call = (await events(a, created.id, 'tool.call'))[0].data;
    expect(call).toMatchObject({ tool_call_id: 'c1', name: 'mcp__calc__add', source: 'mcp', tool_name: 'add', arguments: { a: 2, b: 3 } });
    const result = (await events(a, created.id, 'tool.result'))[0].data;
    expect(result).toMatchObject({ tool_call_id: 'c1', status: 'ok', result: '5', error: null });
    const last = llm.requests[llm.requests.length - 1].body.messages;
    expect(last[last.length - 1]).toMatchObject({ role: 'tool', tool_call_id: 'c1', content: JSON.stringify('5') });
    const exec = (await a.get(`/node/${call.execution_uid}`)).body;
    expect(exec).toMatchObject({ node_type: 'Execution', props: { status: 'completed', affordance_uid: add.affordance_uid } });
    const edges = (await a.get(`/edges?from_uid=${call.execution_uid}`)).body;
    expect(edges.some((e: { edge_type: string; to_uid: string }) => e.edge_type === 'Targets' && e.to_uid === add.affordance_uid)).toBe(true);
  });
});
