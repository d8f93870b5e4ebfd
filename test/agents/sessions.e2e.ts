import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedAnthropicServer } from '@strata/ai/testing/scripted-anthropic-server';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { runEnded, sessionEventTypes, proOwner } from '../support/agent-runs';
import { openSse } from '@strata/live/testing/sse-client';
import { at } from '@strata/domain/testing/fixed-time';

/** Sessions and the runtime loop (REFERENCE §16.6–16.10) against local scripted model servers. */

function llmEnv(provider: 'openai' | 'anthropic', url: string) {
  return { STRATA_LLM_PROVIDER: provider, STRATA_LLM_URL: url, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' };
}

describe('agent sessions, OpenAI protocol', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: llmEnv('openai', llm.baseUrl) });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('a run calls a graph tool as the agent, then answers; every step is an event, a Trace and an Execution node', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Reader', template_type: 'researcher' })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'call_a', name: 'strata_get_node', arguments: { action: 'get', uid: agent.node_uid } }] },
      { type: 'text', text: `The agent node is ${agent.node_uid}.`, usage: { input: 1500, output: 600 } },
    );
    const created = await a.post('/v1/agents/sessions', { agent_id: agent.id, title: 'First', message: 'What is your node?' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ agent_id: agent.id, title: 'First', source: 'api', message_id: expect.any(String), run_id: expect.any(String) });
    const sid = created.body.id;
    const run = await runEnded(a, sid, created.body.run_id);
    expect(run).toMatchObject({ status: 'completed', stop_reason: 'end_turn', steps: 2, tool_calls: 1, error: null, trigger: { kind: 'message', message_id: created.body.message_id } });
    expect(run.credits).toBe(1 + 3);

    expect(await sessionEventTypes(a, sid)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed']);
    const events = (await a.get(`/v1/agents/sessions/${sid}/events`)).body.items;
    expect(events.map((e: { seq: number }) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const result = events.find((e: { type: string }) => e.type === 'tool.result');
    expect(result.data).toMatchObject({ tool_call_id: 'call_a', name: 'strata_get_node', status: 'ok', result: { uid: agent.node_uid, node_type: 'Agent' } });
    expect(events[7].data).toMatchObject({ content: `The agent node is ${agent.node_uid}.`, interrupted: false });

    // the model saw the tool's result, and tools offered as OpenAI functions
    const second = llm.requests[llm.requests.length - 1].body;
    expect(second.tools.map((x: { function: { name: string } }) => x.function.name)).toContain('ask_user');
    expect(second.messages.find((m: { role: string }) => m.role === 'tool')).toMatchObject({ tool_call_id: 'call_a' });

    const exec = await a.get(`/node/${result.data.execution_uid}`);
    expect(exec.body).toMatchObject({ node_type: 'Execution', props: { status: 'completed', agent_uid: agent.node_uid } });
    expect(exec.body.props.input_snapshot).toEqual({ action: 'get', uid: agent.node_uid });
    expect(exec.body.props.output_snapshot).toMatchObject({ uid: agent.node_uid, node_type: 'Agent' });
    const trace = await a.get(`/node/${run.trace_uid}`);
    expect(trace.body).toMatchObject({ node_type: 'Trace', props: { trace_type: 'execution', entry_count: 1 } });
    expect(trace.body.props.ended_at).toEqual(expect.any(Number));
    // the edges of REFERENCE §16.10: Trace → Session CapturedIn, Trace → Execution TraceEntry {order}, Execution → Agent ExecutedBy
    const edges = async (from: string, type: string) => {
      const body = (await a.get(`/edges?from_uid=${from}&edge_type=${type}`)).body;
      return (Array.isArray(body) ? body : body.items) as { to_uid: string; props: Record<string, unknown> }[];
    };
    const sessionNode = (await a.get(`/v1/agents/sessions/${sid}`)).body.node_uid;
    expect((await edges(run.trace_uid, 'CapturedIn')).map((e) => e.to_uid)).toEqual([sessionNode]);
    const entries = await edges(run.trace_uid, 'TraceEntry');
    expect(entries.map((e) => [e.to_uid, e.props.order])).toEqual([[result.data.execution_uid, 1]]);
    expect((await edges(result.data.execution_uid, 'ExecutedBy')).map((e) => e.to_uid)).toEqual([agent.node_uid]);

    const after = (await a.get(`/v1/agents/${agent.id}`)).body;
    expect(after.budget).toMatchObject({ used_today: 4, remaining_today: 196 });
    expect(after.usage).toMatchObject({ runs: 1, credits: 4 });
    // the organization's meter (REFERENCE §17)
    const usage = (await a.get('/v1/usage')).body;
    expect(usage).toMatchObject({
      agents: { active: 1, limit: 5 },
      agent_credits: { used: 4, limit: 10_000, left: 9_996, today: 4 },
      runs: { this_period: 1, running: 0, queued: 0, concurrent_limit: 3 },
      mcp_connections: { used: 0, limit: 10 },
    });
    // both model calls are in the organization's model usage, recorded with the steps' own events
    expect(usage.llm).toMatchObject({ calls: 2 });
    // filters of the event list
    const only = (await a.get(`/v1/agents/sessions/${sid}/events?types=tool.call,tool.result&after=4`)).body.items;
    expect(only.map((e: { seq: number }) => e.seq)).toEqual([5, 6]);
  });

  it('a graph tool call that creates a node: Execution → ProducesNode → the node, created as the agent', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Maker', tools: ['strata_capture'] })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'c1', name: 'strata_capture', arguments: { action: 'entity', label: 'Acme Rockets' } }] }, { type: 'text', text: 'Made it.' });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'make an entity' })).body;
    expect(await runEnded(a, created.id, created.run_id)).toMatchObject({ status: 'completed', tool_calls: 1 });
    const result = (await a.get(`/v1/agents/sessions/${created.id}/events?types=tool.result`)).body.items[0].data;
    expect(result).toMatchObject({ status: 'ok' });
    const body = (await a.get(`/edges?from_uid=${result.execution_uid}&edge_type=ProducesNode`)).body;
    const produced = (Array.isArray(body) ? body : body.items) as { to_uid: string }[];
    expect(produced).toHaveLength(1);
    const node = (await a.get(`/node/${produced[0].to_uid}`)).body;
    expect(node).toMatchObject({ label: 'Acme Rockets', agent_id: agent.id });
  });

  it('an Article the agent writes with its tool is listed by GET /v1/agents/{id}/articles; another agent lists none', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Writer', template_type: 'briefing' })).body;
    const other = (await a.post('/v1/agents', { name: 'Quiet' })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'w1', name: 'strata_write_article', arguments: { action: 'create', label: 'Morning brief', content: 'All is calm.' } }] },
      { type: 'text', text: 'Written.' },
    );
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'write the brief' })).body;
    expect(await runEnded(a, created.id, created.run_id)).toMatchObject({ status: 'completed', tool_calls: 1 });
    const page = (await a.get(`/v1/agents/${agent.id}/articles`)).body;
    expect(page).toMatchObject({ has_more: false, limit: 50, offset: 0 });
    expect(page.items.map((n: { node_type: string; label: string; agent_id: string }) => [n.node_type, n.label, n.agent_id])).toEqual([['Article', 'Morning brief', agent.id]]);
    expect((await a.get(`/v1/agents/${other.id}/articles`)).body.items).toEqual([]);
  });

  it('a tool result over 16 KiB of JSON is recorded cut to 16 KiB, counted in bytes (tool.result and the Execution node)', async () => {
    const a = await proOwner(t.url);
    // 9000 characters of 3 bytes each: about 27 KB of JSON, under 16 K characters
    const big = await a.post('/node', { node_type: 'Concept', label: 'Euro', summary: '€'.repeat(9000) });
    expect(big.status).toBe(201);
    const agent = (await a.post('/v1/agents', { name: 'Heavy reader', tools: ['strata_get_node'] })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'big1', name: 'strata_get_node', arguments: { action: 'get', uid: big.body.uid } }] }, { type: 'text', text: 'Read it.' });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'Read the euro node' })).body;
    expect((await runEnded(a, created.id, created.run_id)).status).toBe('completed');
    const result = (await a.get(`/v1/agents/sessions/${created.id}/events?types=tool.result`)).body.items[0].data;
    expect(result.status).toBe('ok');
    expect(result.result).toEqual(expect.stringMatching(/…\[truncated\]$/));
    expect(Buffer.byteLength(JSON.stringify(result.result))).toBeLessThanOrEqual(16 * 1024);
    const exec = (await a.get(`/node/${result.execution_uid}`)).body;
    expect(Buffer.byteLength(JSON.stringify(exec.props.output_snapshot))).toBeLessThanOrEqual(16 * 1024);
  });

  it('a tombstoned Agent or Session node is recreated at the next run, once, and the agent and session move to the new nodes', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Phoenix', tools: ['strata_get_node'] })).body;
    const session = (await a.post('/v1/agents/sessions', { agent_id: agent.id, title: 'Ashes' })).body;
    expect((await a.delete(`/node/${agent.node_uid}`)).status).toBe(200);
    expect((await a.delete(`/node/${session.node_uid}`)).status).toBe(200);
    const executions: string[] = [];
    for (const id of ['p1', 'p2']) {
      llm.enqueue({ type: 'tool_calls', calls: [{ id, name: 'strata_get_node', arguments: { action: 'get', uid: session.node_uid } }] }, { type: 'text', text: 'Done.' });
      const r = await a.post(`/v1/agents/sessions/${session.id}/message`, { content: 'Look', wait: true });
      expect(r.body.run.status).toBe('completed');
      executions.push((await a.get(`/v1/agents/sessions/${session.id}/events?types=tool.result`)).body.items.slice(-1)[0].data.execution_uid);
    }
    const agentNow = (await a.get(`/v1/agents/${agent.id}`)).body.node_uid;
    const sessionNow = (await a.get(`/v1/agents/sessions/${session.id}`)).body.node_uid;
    expect([agentNow === agent.node_uid, sessionNow === session.node_uid]).toEqual([false, false]);
    expect((await a.get(`/node/${agentNow}`)).body).toMatchObject({ node_type: 'Agent', label: 'Phoenix', tombstone_at: null, props: { agent_type: 'llm' } });
    expect((await a.get(`/node/${sessionNow}`)).body).toMatchObject({ node_type: 'Session', tombstone_at: null, props: { session_type: 'agent' } });
    // one new node each, not one per run
    expect((await a.get('/nodes?type=Agent&limit=100')).body.items.map((n: { uid: string }) => n.uid)).toEqual([agentNow]);
    expect((await a.get('/nodes?type=Session&limit=100')).body.items.map((n: { uid: string }) => n.uid)).toEqual([sessionNow]);
    for (const ex of executions) {
      expect((await a.get(`/edges?from_uid=${ex}&edge_type=ExecutedBy`)).body.map((e: { to_uid: string }) => e.to_uid)).toEqual([agentNow]);
      expect((await a.get(`/node/${ex}`)).body.props.agent_uid).toBe(agentNow);
    }
    for (const started of (await a.get(`/v1/agents/sessions/${session.id}/events?types=run.started`)).body.items) {
      expect(Object.keys(started.data).sort()).toEqual(['model', 'run_id', 'trace_uid', 'trigger']);
      expect((await a.get(`/edges?from_uid=${started.data.trace_uid}&edge_type=CapturedIn`)).body.map((e: { to_uid: string }) => e.to_uid)).toEqual([sessionNow]);
    }
  });

  it('wait:true answers 200 with the run and its output; the history carries the earlier turns', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Chat' })).body;
    const sid = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    llm.enqueue({ type: 'text', text: 'Hello!' });
    const one = await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'Hi', wait: true });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ session_id: sid, output: 'Hello!', run: { status: 'completed' } });
    llm.enqueue({ type: 'text', text: 'Again.' });
    const two = await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'Once more', wait: true });
    expect(two.body.output).toBe('Again.');
    const sent = llm.requests[llm.requests.length - 1].body.messages.filter((m: { role: string }) => m.role !== 'system');
    expect(sent.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([['user', 'Hi'], ['assistant', 'Hello!'], ['user', 'Once more']]);
    const s = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    expect(s).toMatchObject({ status: 'idle', message_count: 4, current_run: null, last_run: { status: 'completed' } });
    // each run's Trace is labelled with the run's place in its session; another session counts from 1
    const label = async (uid: string) => (await a.get(`/node/${uid}`)).body.label;
    expect([await label(one.body.run.trace_uid), await label(two.body.run.trace_uid)]).toEqual(['Run 1', 'Run 2']);
    llm.enqueue({ type: 'text', text: 'New here.' });
    const other = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    const first = await a.post(`/v1/agents/sessions/${other}/message`, { content: 'Hi', wait: true });
    expect(await label(first.body.run.trace_uid)).toBe('Run 1');
  });

  it('ask_user: the run waits (requires_action) until the answer, which the model then gets', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Asker', template_type: 'monitor' })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Which region?', options: ['EU', 'US'] } }] });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'Check the numbers' })).body;
    const sid = created.id;
    const pending = await eventually(async () => {
      const p = (await a.get(`/v1/agents/sessions/${sid}/pending-input`)).body;
      return p.pending ? p : null;
    });
    expect(pending.request).toMatchObject({ run_id: created.run_id, prompt: 'Which region?', options: ['EU', 'US'], expires_at: '2030-01-02T12:00:00.000Z' });
    expect((await a.get(`/v1/agents/sessions/${sid}`)).body.status).toBe('requires_action');
    const work = (await a.get(`/v1/agents/${agent.id}/work`)).body;
    expect(work).toMatchObject({ active_sessions: 1, pending_inputs: [{ session_id: sid, request_id: pending.request.request_id }] });
    expect((await a.post(`/v1/agents/sessions/${sid}/respond`, { response: 'EU', request_id: 'other' })).status).toBe(404);

    llm.enqueue({ type: 'text', text: 'EU it is.' });
    const r = await a.post(`/v1/agents/sessions/${sid}/respond`, { response: 'EU' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ request_id: pending.request.request_id, run_id: created.run_id });
    const run = await runEnded(a, sid, created.run_id);
    expect(run.status).toBe('completed');
    const last = llm.requests[llm.requests.length - 1].body.messages;
    expect(last[last.length - 1]).toMatchObject({ role: 'tool', tool_call_id: 'ask1', content: JSON.stringify({ response: 'EU' }) });
    expect(await sessionEventTypes(a, sid)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'input.requested', 'input.provided', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed']);
    const none = await a.post(`/v1/agents/sessions/${sid}/respond`, { response: 'again' });
    expect([none.status, none.body.code]).toEqual([409, 'invalid_transition']);
  });

  it('max_steps: a run out of model calls fails max_steps_exceeded; unknown tools get a tool error', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Looper', max_steps: 2, tools: ['strata_get_node'] })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'x1', name: 'strata_capture', arguments: { action: 'observation' } }] },
      { type: 'tool_calls', calls: [{ id: 'x2', name: 'strata_get_node', arguments: 'not json' }] },
    );
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'loop' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'max_steps_exceeded' }, steps: 2 });
    const results = (await a.get(`/v1/agents/sessions/${created.id}/events?types=tool.result`)).body.items.map((e: { data: { error: { code: string } } }) => e.data.error.code);
    expect(results).toEqual(['unknown_tool', 'invalid_arguments']);
  });

  it('interrupt aborts the in-flight model request and discards queued messages; the session goes idle', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Slow' })).body;
    llm.enqueue({ type: 'hang' });
    const asked = llm.requests.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'take your time' })).body;
    const sid = created.id;
    await eventually(async () => (await a.get(`/v1/agents/sessions/${sid}`)).body.current_run?.status === 'running');
    await eventually(() => llm.requests.length === asked + 1, { what: 'the model request' });
    const request = llm.requests[asked];
    expect(request.abandoned).toBeUndefined();
    const queued = await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'and this' });
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ run_status: 'queued', queue_position: 1 });
    const stop = await a.post(`/v1/agents/sessions/${sid}/interrupt`, {});
    expect(stop.body).toEqual({ session_id: sid, interrupted: true, run_id: created.run_id, discarded_message_ids: [queued.body.message_id] });
    // the model request in flight was aborted: its connection closed before any answer
    await eventually(() => request.abandoned === true, { what: 'the model request aborted' });
    const s = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    expect(s).toMatchObject({ status: 'idle', current_run: null, queued_messages: 0, last_run: { id: created.run_id, status: 'cancelled' } });
    expect((await a.post(`/v1/agents/sessions/${sid}/interrupt`, {})).body).toMatchObject({ interrupted: false, run_id: null });
    const cancelled = (await a.get(`/v1/agents/sessions/${sid}/events?types=run.cancelled`)).body.items[0];
    expect(cancelled.data).toEqual({ run_id: created.run_id, reason: 'interrupted', discarded_message_ids: [queued.body.message_id] });
  });

  it('a session holds at most 20 messages behind its run: the 21st is 409 queue_full and writes nothing', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Busy' })).body;
    llm.enqueue({ type: 'hang' });
    const asked = llm.requests.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'hold on' })).body;
    await eventually(() => llm.requests.length === asked + 1, { what: 'the model request' });
    for (let i = 1; i <= 20; i++) expect((await a.post(`/v1/agents/sessions/${created.id}/message`, { content: `m${i}` })).body).toMatchObject({ run_status: 'queued', queue_position: i });
    const before = (await a.get(`/v1/agents/sessions/${created.id}`)).body;
    expect(before).toMatchObject({ queued_messages: 20, message_count: 21 });
    const full = await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'one too many' });
    expect([full.status, full.body.code]).toEqual([409, 'queue_full']);
    expect((await a.get(`/v1/agents/sessions/${created.id}`)).body).toMatchObject({ queued_messages: 20, message_count: 21, last_seq: before.last_seq });
    const stop = (await a.post(`/v1/agents/sessions/${created.id}/interrupt`, {})).body;
    expect(stop.discarded_message_ids).toHaveLength(20);
  });

  it('a full queue (409 queue_full, a state) is refused before a used-up budget (429, a quota)', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Crowded', daily_credit_budget: 10 })).body;
    llm.enqueue({ type: 'text', text: 'spent', usage: { input: 1500, output: 100 } });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'spend' })).body;
    await runEnded(a, created.id, created.run_id);
    llm.enqueue({ type: 'hang' });
    const asked = llm.requests.length;
    expect((await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'hold on' })).status).toBe(202);
    await eventually(() => llm.requests.length === asked + 1, { what: 'the model request' });
    for (let i = 1; i <= 20; i++) expect((await a.post(`/v1/agents/sessions/${created.id}/message`, { content: `m${i}` })).status).toBe(202);
    // the day's budget is now used up (2 credits spent, 2 allowed)
    expect((await a.patch(`/v1/agents/${agent.id}`, { daily_credit_budget: 2 })).body.budget.remaining_today).toBe(0);
    const full = await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'one too many' });
    expect([full.status, full.body.code]).toEqual([409, 'queue_full']);
    await a.post(`/v1/agents/sessions/${created.id}/interrupt`, {});
    const spent = await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'room now' });
    expect([spent.status, spent.body.code]).toEqual([429, 'budget_exhausted']);
  });

  it('budget: a message once the day is used up is 429 budget_exhausted with Retry-After; archive ends the session', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Thrifty', daily_credit_budget: 2 })).body;
    llm.enqueue({ type: 'text', text: 'spent', usage: { input: 1500, output: 100 } });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'spend' })).body;
    await runEnded(a, created.id, created.run_id);
    const refused = await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'more' });
    expect([refused.status, refused.body.code, refused.body.scope, refused.body.budget, refused.body.used]).toEqual([429, 'budget_exhausted', 'agent', 2, 2]);
    expect(refused.body.resets_at).toBe('2030-01-02T00:00:00.000Z');
    expect(refused.headers.get('retry-after')).toBe(String(12 * 3600));
    const archived = await a.post(`/v1/agents/sessions/${created.id}/archive`, {});
    expect(archived.body.status).toBe('archived');
    const late = await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'x' });
    expect([late.status, late.body.code]).toEqual([409, 'invalid_transition']);
    expect((await sessionEventTypes(a, created.id)).slice(-1)).toEqual(['session.archived']);
  });

  it('a budget used up mid-run: the tool call of the step that spent it is completed, the next model call is not made', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Midway', daily_credit_budget: 2, tools: ['strata_get_node'] })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'm1', name: 'strata_get_node', arguments: { uid: agent.node_uid } }], usage: { input: 1500, output: 100 } });
    const before = llm.requests.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'look it up' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'budget_exhausted' }, steps: 1, tool_calls: 1, credits: 2 });
    expect(llm.requests.length - before).toBe(1);
    expect(await sessionEventTypes(a, created.id)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result', 'budget.exhausted', 'run.failed']);
    const exhausted = (await a.get(`/v1/agents/sessions/${created.id}/events?types=budget.exhausted`)).body.items[0];
    expect(exhausted.data).toEqual({ scope: 'agent', budget: 2, used: 2, resets_at: '2030-01-02T00:00:00.000Z' });
    const trace = await a.get(`/node/${run.trace_uid}`);
    expect(trace.body.props.ended_at).toEqual(expect.any(Number));
  });

  it('the stream: ready, then each event with its seq as id; Last-Event-ID resumes; closed after session.archived', async () => {
    const owner = await signUp(t.url);
    expect((await api(t.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const a = api(t.url, owner.access_token);
    const agent = (await a.post('/v1/agents', { name: 'Streamer' })).body;
    const sid = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    const auth = { authorization: `Bearer ${owner.access_token}` };
    const live = await openSse(`${t.url}/v1/agents/sessions/${sid}/stream`, auth);
    expect(live.res.headers.get('content-type')).toContain('text/event-stream');
    let ready = await live.nextEvent();
    expect(ready?.retry).toBe(3000);
    ready = await live.nextEvent();
    expect(ready).toMatchObject({ event: 'ready' });
    expect(JSON.parse(ready!.data!)).toEqual({ session_id: sid, status: 'idle', last_seq: 1 });
    expect(ready!.id).toBeUndefined();
    llm.enqueue({ type: 'text', text: 'streamed answer' });
    const sent = (await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'go' })).body;
    const got: { event?: string; id?: string }[] = [];
    const deltas: any[] = [];
    while (got.length < 5) {
      const e = await live.nextEvent();
      if (e?.event === 'message.delta') {
        // live only: no id, so the client's last event id stays on the recorded events
        expect(e.id).toBeUndefined();
        expect(got.map((g) => g.event)).toEqual(['message.user', 'run.started']);
        deltas.push(JSON.parse(e.data!));
      } else if (e && e.event) got.push({ event: e.event, id: e.id });
    }
    expect(got).toEqual([
      { event: 'message.user', id: '2' },
      { event: 'run.started', id: '3' },
      { event: 'inference.completed', id: '4' },
      { event: 'message.assistant', id: '5' },
      { event: 'run.completed', id: '6' },
    ]);
    // the scripted server streams 8 characters at a time: each piece reached the client as it came
    expect(deltas.map((d) => d.data.delta)).toEqual(['streamed', ' answer']);
    const answer = (await a.get(`/v1/agents/sessions/${sid}/events?types=message.assistant`)).body.items[0];
    for (const d of deltas) {
      expect(d).toEqual({ session_id: sid, run_id: sent.run_id, type: 'message.delta', created_at: '2030-01-01T12:00:00.000Z', data: { message_id: answer.data.message_id, step: 1, delta: d.data.delta } });
      expect(d.seq).toBeUndefined();
    }
    // never listed
    expect(await sessionEventTypes(a, sid)).not.toContain('message.delta');
    live.close();

    const again = await openSse(`${t.url}/v1/agents/sessions/${sid}/stream`, { ...auth, 'last-event-id': '3' });
    expect((await again.nextEvent())?.retry).toBe(3000);
    expect((await again.nextEvent())?.event).toBe('ready');
    const replayed = [await again.nextEvent(), await again.nextEvent(), await again.nextEvent()];
    expect(replayed.map((e) => e?.id)).toEqual(['4', '5', '6']);
    expect(JSON.parse(replayed[1]!.data!)).toMatchObject({ seq: 5, session_id: sid, type: 'message.assistant', data: { content: 'streamed answer', interrupted: false } });
    await a.post(`/v1/agents/sessions/${sid}/archive`, {});
    const rest = await again.rest();
    expect(rest.filter((b) => b.event).map((b) => b.event)).toEqual(['session.archived']);
  });

  it('a model that keeps failing fails the run with upstream_error', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Unlucky' })).body;
    llm.enqueue({ type: 'error', status: 400 });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'x' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
  });
});

describe('agent sessions, Anthropic protocol, streaming, and a restart mid-run', () => {
  let llm: ScriptedAnthropicServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  afterAll(async () => llm.close());

  it('tool_use and tool_result blocks; a run whose model answer was lost resumes after a restart', async () => {
    llm = await ScriptedAnthropicServer.start({ apiKey: 'test' });
    let t = await startTestApp({ clock, env: llmEnv('anthropic', llm.baseUrl) });
    const owner = await signUp(t.url);
    expect((await api(t.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const a = api(t.url, owner.access_token);
    const agent = (await a.post('/v1/agents', { name: 'Claude-ish' })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'toolu_1', name: 'strata_get_node', arguments: { action: 'get', uid: agent.node_uid } }] },
      { type: 'text', text: 'Found it.' },
    );
    const first = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'find yourself' })).body;
    expect((await runEnded(a, first.id, first.run_id)).status).toBe('completed');
    const second = llm.requests[llm.requests.length - 1];
    expect(second.body.stream).toBe(true);
    expect(second.body.tools.map((x: { name: string }) => x.name)).toContain('strata_get_node');
    expect(second.body.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_1' });

    // the model never answers; the service stops and starts again on the same data
    llm.enqueue({ type: 'hang' });
    const sent = (await a.post(`/v1/agents/sessions/${first.id}/message`, { content: 'and now?' })).body;
    await eventually(() => llm.requests.length === 3);
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    llm.enqueue({ type: 'text', text: 'Back again.' });
    t = await startTestApp({ clock, dataDir, env: llmEnv('anthropic', llm.baseUrl) });
    try {
      const b = api(t.url, owner.access_token);
      const run = await runEnded(b, first.id, sent.run_id);
      expect(run.status).toBe('completed');
      expect(llm.requests.length).toBe(4);
      const events = (await b.get(`/v1/agents/sessions/${first.id}/events?run_id=${sent.run_id}`)).body.items;
      expect(events.map((e: { type: string }) => e.type)).toEqual(['message.user', 'run.started', 'inference.completed', 'message.assistant', 'run.completed']);
    } finally {
      await t.close();
    }
  });
});

describe('message.delta on the stream, Anthropic protocol', () => {
  let t: TestApp;
  let llm: ScriptedAnthropicServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await ScriptedAnthropicServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: llmEnv('anthropic', llm.baseUrl) });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('text streamed before a tool call and the answer arrive as deltas of their step; a plain JSON answer is one delta', async () => {
    const owner = await signUp(t.url);
    expect((await api(t.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const a = api(t.url, owner.access_token);
    const agent = (await a.post('/v1/agents', { name: 'Talker' })).body;
    const sid = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    const live = await openSse(`${t.url}/v1/agents/sessions/${sid}/stream`, { authorization: `Bearer ${owner.access_token}` });
    expect((await live.nextEvent())?.retry).toBe(3000);
    expect((await live.nextEvent())?.event).toBe('ready');

    llm.enqueue(
      { type: 'tool_calls', text: 'Let me look.', calls: [{ id: 'toolu_1', name: 'strata_get_node', arguments: { action: 'get', uid: agent.node_uid } }] },
      { type: 'text', text: 'It is an Agent node.' },
      // the provider answers with one JSON body although the request streamed
      { type: 'text', text: 'Plain.', stream: false },
    );
    const first = (await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'look' })).body;
    const frames: { event: string; data: any }[] = [];
    for (;;) {
      const e = await live.nextEvent();
      frames.push({ event: e!.event!, data: JSON.parse(e!.data!) });
      if (e!.event === 'run.completed') break;
    }
    const deltas = frames.filter((f) => f.event === 'message.delta').map((f) => f.data);
    expect(deltas.every((d) => d.run_id === first.run_id && d.type === 'message.delta')).toBe(true);
    const byStep = (step: number) => deltas.filter((d) => d.data.step === step).map((d) => d.data.delta).join('');
    expect(byStep(1)).toBe('Let me look.');
    expect(byStep(2)).toBe('It is an Agent node.');
    // step 2's deltas come after the tool's result and before the answer, which carries their message id
    const order = frames.map((f) => (f.event === 'message.delta' ? `delta${f.data.data.step}` : f.event));
    expect(order.lastIndexOf('delta1')).toBeLessThan(order.indexOf('inference.completed'));
    expect(order.indexOf('delta2')).toBeGreaterThan(order.indexOf('tool.result'));
    expect(order.lastIndexOf('delta2')).toBeLessThan(order.indexOf('message.assistant'));
    const answer = frames.find((f) => f.event === 'message.assistant')!.data;
    expect(new Set(deltas.filter((d) => d.data.step === 2).map((d) => d.data.message_id))).toEqual(new Set([answer.data.message_id]));

    const second = (await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'again' })).body;
    const more: { event: string; data: any }[] = [];
    for (;;) {
      const e = await live.nextEvent();
      more.push({ event: e!.event!, data: JSON.parse(e!.data!) });
      if (e!.event === 'run.completed') break;
    }
    expect(more.filter((f) => f.event === 'message.delta').map((f) => [f.data.run_id, f.data.data.delta])).toEqual([[second.run_id, 'Plain.']]);
    live.close();
    expect((await a.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items.map((e: { type: string }) => e.type)).not.toContain('message.delta');
  });
});

describe('agents once the service runs without a language model (REFERENCE §16.2)', () => {
  let t: TestApp | null = null;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  afterAll(async () => {
    await t?.close();
  });

  it('every route that would start a run answers 501 llm_not_configured and writes nothing; the rest works', async () => {
    // the agent was made while a model was configured (never called here); the service then restarts offline
    t = await startTestApp({ clock, env: llmEnv('openai', 'http://127.0.0.1:9/v1') });
    const owner = await signUp(t.url);
    expect((await api(t.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await api(t.url, owner.access_token).post('/v1/agents', { name: 'Idle' })).body;
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    t = await startTestApp({ clock, dataDir, env: { STRATA_LLM_PROVIDER: 'offline' } });
    const a = api(t.url, owner.access_token);
    const refused = await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'hello' });
    expect([refused.status, refused.body.code]).toEqual([501, 'llm_not_configured']);
    expect((await a.get('/v1/agents/sessions')).body.items).toEqual([]);
    const session = await a.post('/v1/agents/sessions', { agent_id: agent.id });
    expect(session.status).toBe(201);
    const message = await a.post(`/v1/agents/sessions/${session.body.id}/message`, { content: 'hello' });
    expect([message.status, message.body.code]).toEqual([501, 'llm_not_configured']);
    expect(await sessionEventTypes(a, session.body.id)).toEqual(['session.created']);
    const schedule = await a.post('/v1/agents/schedules', { agent_id: agent.id, name: 'Daily', cron: '@daily', message_template: 'go' });
    expect(schedule.status).toBe(201);
  });
});

describe('an answer to a pending question once the service runs without a language model (REFERENCE §16.2)', () => {
  let t: TestApp | null = null;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('respond answers 501 llm_not_configured and writes nothing: the question stays pending', async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: llmEnv('openai', llm.baseUrl) });
    const owner = await signUp(t.url);
    expect((await api(t.url, owner.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    let a = api(t.url, owner.access_token);
    const agent = (await a.post('/v1/agents', { name: 'Asker', template_type: 'monitor' })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Which region?' } }] });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'Check the numbers' })).body;
    await eventually(async () => (await a.get(`/v1/agents/sessions/${created.id}/pending-input`)).body.pending === true, { what: 'the question' });
    // the service restarts without a model while the run waits on the person
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    t = await startTestApp({ clock, dataDir, env: { STRATA_LLM_PROVIDER: 'offline' } });
    a = api(t.url, owner.access_token);
    const before = await sessionEventTypes(a, created.id);
    expect(before.slice(-1)).toEqual(['input.requested']);

    const r = await a.post(`/v1/agents/sessions/${created.id}/respond`, { response: 'EU' });
    expect([r.status, r.body.code]).toEqual([501, 'llm_not_configured']);
    expect(await sessionEventTypes(a, created.id)).toEqual(before);
    expect((await a.get(`/v1/agents/sessions/${created.id}/pending-input`)).body.pending).toBe(true);
    expect((await a.get(`/v1/agents/sessions/${created.id}`)).body).toMatchObject({ status: 'requires_action', current_run: { status: 'requires_action' } });
  });
});
