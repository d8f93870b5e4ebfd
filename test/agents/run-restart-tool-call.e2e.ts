import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { runEnded } from '../support/agent-runs';
import { ModernToolServer, startModernToolServer } from '../mcp/support/modern-tool-server';

/**
 * A restart while a tool call runs (REFERENCE §16.7): the run resumes on the same data, the
 * call is not made again (the model is told it was interrupted), and the run goes on to its
 * answer. An MCP tool server on loopback whose `slow` tool holds the call, a scripted model
 * server, real HTTP and auth.
 */
describe('a restart while a tool call runs', () => {
  let t: TestApp | null = null;
  let llm: ScriptedOpenAIChatServer;
  let tools: ModernToolServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  const env = () => ({ STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' });

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    tools = await startModernToolServer();
  });
  afterAll(async () => {
    await t?.close();
    tools?.release();
    await tools?.close();
    await llm?.close();
  });

  it('resumes the run without repeating the call: the model gets interrupted and answers', async () => {
    t = await startTestApp({ clock, env: env() });
    const user = await signUp(t.url);
    const a = api(t.url, user.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
    const conn = (await a.post('/v1/mcp/connections', { name: 'Tools', url: tools.url, auth: { type: 'none' }, approval_mode: 'never' })).body;
    const registry = (await a.get(`/v1/mcp/registry?connection_id=${conn.id}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[];
    const agent = (await a.post('/v1/agents', { name: 'Patient', tools: ['strata_get_node'] })).body;
    for (const tool of registry) expect((await a.put(`/v1/agents/${agent.id}/tool-grants/${tool.affordance_uid}`, {})).status).toBe(201);
    const slow = registry.find((x) => x.name === 'slow')!.model_name;

    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'r1', name: slow, arguments: { a: 1 } }] });
    const from = tools.seen.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'take your time' })).body;
    await eventually(() => tools.seen.slice(from).find((m) => m.method === 'tools/call' && m.params?.name === 'slow'), { what: 'the slow call reached the server' });

    // the service stops while the call runs, and starts again on the same data
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    t = null;
    llm.enqueue({ type: 'text', text: 'Resumed without it.' });
    t = await startTestApp({ clock, dataDir, env: env() });
    const b = api(t.url, user.access_token);
    const run = await runEnded(b, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'completed', steps: 2, tool_calls: 1 });
    expect(tools.seen.slice(from).filter((m) => m.method === 'tools/call' && m.params?.name === 'slow')).toHaveLength(1);

    const events = (await b.get(`/v1/agents/sessions/${created.id}/events?run_id=${created.run_id}&limit=1000`)).body.items;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed']);
    expect(events[4].data).toMatchObject({ tool_call_id: 'r1', status: 'error', error: { code: 'interrupted' } });
    // the model was told, and answered
    const last = llm.requests[llm.requests.length - 1].body.messages;
    expect(last[last.length - 1]).toMatchObject({ role: 'tool', tool_call_id: 'r1' });
    expect(last[last.length - 1].content).toContain('"interrupted"');
  });
});
