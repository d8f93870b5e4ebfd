import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { runEnded } from '../support/agent-runs';
import { ToolServer, startToolServer } from './support/tool-server';
import { openSse } from '@strata/live/testing/sse-client';
import { at } from '@strata/domain/testing/fixed-time';
import { ApprovalExpiry } from '@strata/mcp/approvals';

/**
 * MCP tools of managed agents and their approvals (REFERENCE §15.10, §16.4, §16.5): a real
 * MCP server built with the SDK on loopback, a scripted OpenAI-protocol model server, real
 * HTTP and auth, and a FixedClock moved for expiry.
 */

interface Org {
  a: Api;
  token: string;
  org_id: string;
  user_id: string;
}

async function teamOwner(url: string): Promise<Org> {
  const s = await signUp(url);
  const a = api(url, s.access_token);
  expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
  return { a, token: s.access_token, org_id: s.org_id, user_id: s.user_id };
}

async function events(a: Api, sid: string, types?: string) {
  return (await a.get(`/v1/agents/sessions/${sid}/events?limit=1000${types ? `&types=${types}` : ''}`)).body.items as { type: string; data: any }[];
}

describe('MCP tools of managed agents, and tool-call approvals', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let tools: ToolServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

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

  /** a session whose run calls `add` and waits for its approval; the model's next answer is `answer` */
  async function askAdd(a: Api, agentId: string, modelName: string, callId: string, answer: string | null = 'Done.') {
    llm.enqueue({ type: 'tool_calls', calls: [{ id: callId, name: modelName, arguments: { a: 2, b: 3 } }] });
    if (answer !== null) llm.enqueue({ type: 'text', text: answer });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agentId, message: 'add 2 and 3' })).body;
    const approval = await eventually(async () => {
      const list = (await a.get(`/v1/mcp/approvals?session_id=${created.id}&status=pending`)).body.items;
      return list.length ? list[0] : null;
    }, { what: 'a pending approval' });
    return { sid: created.id as string, runId: created.run_id as string, approval };
  }

  it('approval_mode always: the run requires_action until a member allows; then the call runs; the Approval node follows', async () => {
    const { a, org_id, add, agent, connection } = await setUp('Gate');
    const { sid, runId, approval } = await askAdd(a, agent.id, add.model_name, 'g1', 'Five.');
    expect(approval).toMatchObject({
      status: 'pending', kind: 'mcp_tool', connection_id: connection.id, connection_name: 'Gate', tool_name: 'add', model_name: add.model_name, affordance_uid: add.affordance_uid,
      arguments: { a: 2, b: 3 }, reasons: [{ source: 'connection_mode' }], agent_id: agent.id, agent_name: agent.name, session_id: sid, run_id: runId, tool_call_id: 'g1',
      requested_at: '2030-01-01T12:00:00.000Z', expires_at: '2030-01-01T13:00:00.000Z', resolved_at: null, resolved_by: null, scope: 'once',
    });
    const session = (await a.get(`/v1/agents/sessions/${sid}`)).body;
    expect(session).toMatchObject({ status: 'requires_action', pending_approvals: 1, current_run: { status: 'requires_action' } });
    const work = (await a.get(`/v1/agents/${agent.id}/work`)).body;
    expect(work.pending_decisions.map((d: { id: string }) => d.id)).toEqual([approval.id]);
    // the graph: an Approval node (uid = approval id), Affordance → Approval RequiresApproval
    const node = (await a.get(`/node/${approval.id}`)).body;
    expect(node).toMatchObject({ node_type: 'Approval', props: { status: 'pending', target_type: 'mcp_tool', target_uid: add.affordance_uid } });
    const edges = (await a.get(`/edges?to_uid=${approval.id}`)).body;
    expect(edges).toEqual([expect.objectContaining({ edge_type: 'RequiresApproval', from_uid: add.affordance_uid })]);
    // and the graph's own queue of pending approvals (REFERENCE §16.5)
    expect((await a.get('/approvals/pending')).body.map((n: { uid: string }) => n.uid)).toContain(approval.id);
    // graph routes never resolve a tool approval
    const patched = await a.patch(`/node/${approval.id}`, { props: { status: 'approved' } });
    expect([patched.status, patched.body.code]).toEqual([409, 'invalid_transition']);
    const viaGov = await a.post('/agent/governance', { action: 'resolve_approval', approval_uid: approval.id, approved: true });
    expect([viaGov.status, viaGov.body.code]).toEqual([409, 'invalid_transition']);
    // input and role refusals change nothing
    const m = await signUp(t.url);
    await a.post(`/v1/orgs/${org_id}/members`, { email: m.email, role: 'viewer' });
    const viewer = api(t.url, m.access_token, { org: org_id });
    const low = await viewer.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'allow' });
    expect([low.status, low.body.code, low.body.required_role]).toEqual([403, 'insufficient_role', 'member']);
    const none = await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, {});
    expect([none.status, none.body.code, none.body.field]).toEqual([400, 'missing_field', 'decision']);
    const bad = await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'maybe' });
    expect([bad.status, bad.body.code]).toEqual([400, 'invalid_field']);
    expect((await a.post('/v1/mcp/approvals/00000000-0000-4000-8000-000000000000/resolve', { decision: 'allow' })).status).toBe(404);
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body.status).toBe('pending');

    const ok = await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'approve', reason: 'fine' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: approval.id, status: 'approved', resolution_reason: 'fine', resolved_at: '2030-01-01T12:00:00.000Z', scope: 'once' });
    const run = await runEnded(a, sid, runId);
    expect(run.status).toBe('completed');
    expect((await events(a, sid, 'tool.result'))[0].data).toMatchObject({ tool_call_id: 'g1', status: 'ok', result: '5' });
    const types = (await events(a, sid)).map((e) => e.type);
    expect(types).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'approval.requested', 'approval.resolved', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed']);
    expect((await events(a, sid, 'approval.resolved'))[0].data).toMatchObject({ approval_id: approval.id, tool_call_id: 'g1', status: 'approved', reason: 'fine' });
    expect((await a.get(`/node/${approval.id}`)).body.props).toMatchObject({ status: 'approved', decided_at: expect.any(Number), reason: 'fine' });
    const again = await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'deny' });
    expect([again.status, again.body.code, again.body.from_status]).toEqual([409, 'invalid_transition', 'approved']);
    expect((await a.get(`/v1/agents/${agent.id}/work`)).body.pending_decisions).toEqual([]);
    expect((await a.get('/approvals/pending')).body.map((n: { uid: string }) => n.uid)).not.toContain(approval.id);
    // the organization's activity feed tells the request and its outcome, newest first
    const feed = (await a.get(`/v1/agents/activity?agent_id=${agent.id}&types=approval.requested,approval.resolved`)).body.items;
    expect(feed.map((i: { type: string; approval_id: string }) => [i.type, i.approval_id])).toEqual([
      ['approval.resolved', approval.id],
      ['approval.requested', approval.id],
    ]);
    expect(feed[0]).toMatchObject({ session_id: sid, run_id: runId, connection_id: connection.id, data: { status: 'approved', reason: 'fine' } });
    expect(feed[1]).toMatchObject({ agent_name: agent.name, data: { tool_name: 'add', connection_name: 'Gate' } });
  });

  it('deny: the model gets an approval_denied tool error and the run goes on', async () => {
    const { a, add, agent, token } = await setUp('Denied');
    const { sid, runId, approval } = await askAdd(a, agent.id, add.model_name, 'd1', 'I was not allowed.');
    expect((await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'reject', reason: 'no' })).body.status).toBe('denied');
    const run = await runEnded(a, sid, runId);
    expect(run.status).toBe('completed');
    const result = (await events(a, sid, 'tool.result'))[0].data;
    expect(result).toMatchObject({ tool_call_id: 'd1', status: 'denied', error: { code: 'approval_denied' } });
    const last = llm.requests[llm.requests.length - 1].body.messages;
    expect(last[last.length - 1]).toMatchObject({ role: 'tool', tool_call_id: 'd1' });
    expect(last[last.length - 1].content).toContain('approval_denied');
    expect((await a.get(`/node/${result.execution_uid}`)).body.props).toMatchObject({ status: 'failed', error: expect.stringMatching(/^denied: /) });
    expect((await a.get(`/node/${approval.id}`)).body.props).toMatchObject({ status: 'denied', reason: 'no' });
    // the session stream replays the approval events with their seq, from their own streams
    const live = await openSse(`${t.url}/v1/agents/sessions/${sid}/stream`, { authorization: `Bearer ${token}`, 'last-event-id': '4' });
    const got: { event?: string; id?: string }[] = [];
    while (got.length < 4) {
      const e = await live.nextEvent();
      if (e && e.event && e.event !== 'ready') got.push({ event: e.event, id: e.id });
    }
    live.close();
    expect(got).toEqual([
      { event: 'tool.call', id: '5' },
      { event: 'approval.requested', id: '6' },
      { event: 'approval.resolved', id: '7' },
      { event: 'tool.result', id: '8' },
    ]);
  });

  it('expiry: once approval_timeout_s passes on the clock, the approval expires and the model gets approval_expired', async () => {
    const { a, add, agent } = await setUp('Slowpoke', { approval_timeout_s: 60 });
    const { sid, runId, approval } = await askAdd(a, agent.id, add.model_name, 'e1', 'Nobody answered.');
    expect(approval.expires_at).toBe(new Date((clock.now() + 60) * 1000).toISOString());
    clock.advance(59);
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body.status).toBe('pending');
    expect((await a.get(`/v1/agents/sessions/${sid}`)).body.pending_approvals).toBe(1);
    const expiresS = clock.now() + 1;
    expect((await a.get(`/node/${approval.id}`)).body.props.status).toBe('pending');
    const pendingNodes = async () => [
      (await a.post('/retrieve', { action: 'pending_approvals' })).body.map((n: { uid: string }) => n.uid),
      (await a.post('/retrieve', { action: 'curation_counts' })).body.pending_approvals,
    ];
    expect(await pendingNodes()).toEqual([[approval.id], 1]);
    clock.advance(1);
    // the Approval node reads as the sweep will write it, from expires_at on, and leaves the pending queues
    const expiredNode = { status: 'denied', reason: 'expired', decided_at: expiresS, decided_by: 'system' };
    expect((await a.get(`/node/${approval.id}`)).body.props).toMatchObject(expiredNode);
    expect((await a.post('/nodes/batch', { uids: [approval.id] })).body.nodes[0].props).toMatchObject(expiredNode);
    expect(await pendingNodes()).toEqual([[], 0]);
    // exactly at expires_at every read says expired, whether or not the sweep has written it yet
    const expiresAt = new Date(clock.now() * 1000).toISOString();
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body).toMatchObject({ status: 'expired', resolved_at: expiresAt, resolution_reason: 'expired' });
    expect((await a.get(`/v1/mcp/approvals?session_id=${sid}&status=pending`)).body.items).toEqual([]);
    expect((await a.get(`/v1/mcp/approvals?session_id=${sid}&status=expired`)).body.items.map((x: { id: string }) => x.id)).toEqual([approval.id]);
    expect((await a.get(`/v1/agents/${agent.id}/work`)).body.pending_decisions).toEqual([]);
    expect((await a.get(`/v1/agents/sessions/${sid}`)).body.pending_approvals).toBe(0);
    expect((await a.get('/v1/agents/sessions')).body.items.find((x: { id: string }) => x.id === sid).pending_approvals).toBe(0);
    const tooLate = await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'allow' });
    expect([tooLate.status, tooLate.body.from_status]).toEqual([409, 'expired']);
    // the sweep records the one durable expiry, dated at expires_at, which wakes the run
    clock.advance(1);
    await t.app.get(ApprovalExpiry).sweep();
    const run = await runEnded(a, sid, runId);
    expect(run.status).toBe('completed');
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body).toMatchObject({ status: 'expired', resolved_at: expiresAt, resolution_reason: 'expired' });
    expect((await events(a, sid, 'tool.result'))[0].data).toMatchObject({ status: 'error', error: { code: 'approval_expired' } });
    expect((await events(a, sid, 'approval.resolved'))[0].data).toMatchObject({ status: 'expired' });
    // what the sweep wrote is what was read before it
    const stored = (await a.get(`/node/${approval.id}`)).body;
    expect([stored.version, stored.props]).toEqual([2, expect.objectContaining(expiredNode)]);
    const late = await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'allow' });
    expect([late.status, late.body.code, late.body.from_status]).toEqual([409, 'invalid_transition', 'expired']);
  });

  it('interrupt cancels the pending approvals of the run; so does a connection DELETE, which ends the run', async () => {
    const { a, add, agent, connection } = await setUp('Stopper');
    const first = await askAdd(a, agent.id, add.model_name, 'i1', null);
    const stop = await a.post(`/v1/agents/sessions/${first.sid}/interrupt`, {});
    expect(stop.body).toMatchObject({ interrupted: true, run_id: first.runId });
    expect((await a.get(`/v1/mcp/approvals/${first.approval.id}`)).body).toMatchObject({ status: 'cancelled', resolution_reason: 'interrupted' });
    expect((await a.get(`/v1/agents/sessions/${first.sid}`)).body).toMatchObject({ status: 'idle', pending_approvals: 0 });
    expect((await a.get(`/node/${first.approval.id}`)).body.props).toMatchObject({ status: 'denied', reason: 'cancelled: interrupted' });
    const late = await a.post(`/v1/mcp/approvals/${first.approval.id}/resolve`, { decision: 'allow' });
    expect([late.status, late.body.from_status]).toEqual([409, 'cancelled']);
    llm.requests.length = 0;

    const second = await askAdd(a, agent.id, add.model_name, 'i2', null);
    expect((await a.delete(`/v1/mcp/connections/${connection.id}`)).status).toBe(200);
    expect((await a.get(`/v1/mcp/approvals/${second.approval.id}`)).body).toMatchObject({ status: 'cancelled', resolution_reason: 'connection_deleted' });
    const run = await runEnded(a, second.sid, second.runId);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'approval_cancelled' } });
    expect(llm.requests.length).toBe(1);
  });

  it('a call whose tool was not offered when the turn was governed never runs unapproved, though the tool is back by then', async () => {
    const o = await teamOwner(t.url);
    const pair = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }, { name: 'mul', description: 'Multiplies.' }] });
    try {
      const c = (await o.a.post('/v1/mcp/connections', { name: 'Pair', url: pair.url, auth: { type: 'none' } })).body;
      const registry = (await o.a.get(`/v1/mcp/registry?connection_id=${c.id}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[];
      const [add, mul] = ['add', 'mul'].map((n) => registry.find((x) => x.name === n)!);
      const agent = (await o.a.post('/v1/agents', { name: 'Pair agent', tools: ['strata_get_node'] })).body;
      for (const tool of [add, mul]) expect((await o.a.put(`/v1/agents/${agent.id}/tool-grants/${tool.affordance_uid}`, {})).status).toBe(201);
      // the model is offered both tools and answers with a call of each, once mul is gone
      let answer: () => void = () => undefined;
      const hold = new Promise<void>((r) => (answer = r));
      const before = llm.requests.length;
      llm.enqueue({ type: 'tool_calls', calls: [{ id: 'p1', name: add.model_name, arguments: { a: 1, b: 1 } }, { id: 'p2', name: mul.model_name, arguments: { a: 2, b: 2 } }], hold }, { type: 'text', text: 'Done.' });
      const created = (await o.a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add and multiply' })).body;
      await eventually(async () => llm.requests.length > before || null, { what: 'the model call' });
      pair.tools = [{ name: 'add', description: 'Adds.' }];
      expect((await o.a.post(`/v1/mcp/connections/${c.id}/sync`, {})).body.sync.removed).toEqual(['mul']);
      answer();
      const approval = await eventually(async () => (await o.a.get(`/v1/mcp/approvals?session_id=${created.id}&status=pending`)).body.items[0] ?? null, { what: 'the approval of add' });
      expect(approval.tool_call_id).toBe('p1');
      // mul comes back while add waits for its approval; the connection asks approval for every call
      pair.tools = [{ name: 'add', description: 'Adds.' }, { name: 'mul', description: 'Multiplies.' }];
      expect((await o.a.post(`/v1/mcp/connections/${c.id}/sync`, {})).body.sync.added).toEqual(['mul']);
      expect((await o.a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'allow' })).status).toBe(200);
      const run = await runEnded(o.a, created.id, created.run_id);
      expect(run.status).toBe('completed');
      const results = (await events(o.a, created.id, 'tool.result')).map((e) => e.data);
      expect(results.find((r) => r.tool_call_id === 'p1')).toMatchObject({ status: 'ok', result: '2' });
      expect(results.find((r) => r.tool_call_id === 'p2')).toMatchObject({ status: 'error', error: { code: 'tool_unavailable' } });
      expect((await o.a.get(`/v1/mcp/approvals?session_id=${created.id}`)).body.items.map((x: { tool_call_id: string }) => x.tool_call_id)).toEqual(['p1']);
    } finally {
      await pair.close();
    }
  });

  it('policies come first: deny refuses the call (denied_by_policy), require_approval asks even when the mode never does', async () => {
    const { a, add, agent } = await setUp('Governed', { approval_mode: 'never' });
    const deny = await a.post('/v1/governance/policies', { name: 'No adding', effect: 'deny', match: { tools: [add.affordance_uid] }, status: 'published' });
    expect(deny.status).toBe(201);
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'p1', name: add.model_name, arguments: { a: 1 } }] }, { type: 'text', text: 'Refused.' });
    const one = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add' })).body;
    expect((await runEnded(a, one.id, one.run_id)).status).toBe('completed');
    expect((await events(a, one.id, 'tool.result'))[0].data).toMatchObject({ status: 'denied', error: { code: 'denied_by_policy' }, result: { policy_uid: deny.body.uid } });
    expect((await a.get(`/v1/mcp/approvals?session_id=${one.id}`)).body.items).toEqual([]);
    const audit = (await a.get('/v1/governance/audit?limit=100')).body.items as { event_type?: string; type?: string; data?: any }[];
    expect(JSON.stringify(audit)).toContain(deny.body.uid);

    expect((await a.patch(`/v1/governance/policies/${deny.body.uid}`, { status: 'rejected' })).status).toBe(200);
    const ask = await a.post('/v1/governance/policies', { name: 'Ask before adding', effect: 'require_approval', match: { principals: [`agent:${agent.id}`], tools: [add.affordance_uid] }, status: 'published' });
    expect(ask.status).toBe(201);
    const two = await askAdd(a, agent.id, add.model_name, 'p2', 'Added.');
    expect(two.approval.reasons).toEqual([{ source: 'policy', policy_uid: ask.body.uid }]);
    expect((await a.post(`/v1/mcp/approvals/${two.approval.id}/resolve`, { decision: 'allow' })).status).toBe(200);
    expect((await runEnded(a, two.sid, two.runId)).status).toBe('completed');
    expect((await events(a, two.sid, 'tool.result'))[0].data).toMatchObject({ status: 'ok', result: '5' });

    // shadow mode records, never enforces
    expect((await a.patch('/v1/governance/settings', { mode: 'shadow' })).status).toBe(200);
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'p3', name: add.model_name, arguments: { a: 4 } }] }, { type: 'text', text: 'Four.' });
    const three = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'add' })).body;
    expect((await runEnded(a, three.id, three.run_id)).status).toBe('completed');
    expect((await events(a, three.id, 'tool.result'))[0].data).toMatchObject({ status: 'ok', result: '4' });
  });

  it('scope "session": later calls of the tool in that session skip the mode-based approval; resolve-decision acts on the same record', async () => {
    const { a, add, agent, org_id } = await setUp('Sessioned');
    const other = (await a.post('/v1/agents', { name: 'Other agent' })).body;
    const { sid, runId, approval } = await askAdd(a, agent.id, add.model_name, 's1', 'Five.');
    const wrongAgent = await a.post(`/v1/agents/${other.id}/resolve-decision`, { decision_id: approval.id, decision: 'allow' });
    expect([wrongAgent.status, wrongAgent.body.code]).toEqual([404, 'not_found']);
    const noId = await a.post(`/v1/agents/${agent.id}/resolve-decision`, { decision: 'allow' });
    expect([noId.status, noId.body.code, noId.body.field]).toEqual([400, 'missing_field', 'decision_id']);
    const key = (await a.post('/v1/api-keys', { name: 'k', scopes: ['read', 'write'] })).body;
    const byKey = await api(t.url, key.key).post(`/v1/agents/${agent.id}/resolve-decision`, { approval_id: approval.id, decision: 'allow' });
    expect([byKey.status, byKey.body.code]).toEqual([403, 'api_key_not_allowed']);
    const ok = await a.post(`/v1/agents/${agent.id}/resolve-decision`, { approval_id: approval.id, decision: 'allow', scope: 'session' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id: approval.id, status: 'approved', scope: 'session', resolved_by: { kind: 'user' } });
    expect((await runEnded(a, sid, runId)).status).toBe('completed');
    const again = await a.post(`/v1/agents/${agent.id}/resolve-decision`, { decision_id: approval.id, decision: 'deny' });
    expect([again.status, again.body.code, again.body.from_status]).toEqual([409, 'invalid_transition', 'approved']);

    llm.enqueue({ type: 'tool_calls', calls: [{ id: 's2', name: add.model_name, arguments: { a: 7 } }] }, { type: 'text', text: 'Seven.' });
    const next = await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'add 7', wait: true });
    expect(next.status).toBe(200);
    expect(next.body.run.status).toBe('completed');
    expect((await events(a, sid, 'tool.result')).map((e) => e.data.result)).toEqual(['5', '7']);
    expect((await a.get(`/v1/mcp/approvals?session_id=${sid}`)).body.items).toHaveLength(1);
    expect((await a.get(`/v1/mcp/approvals?agent_id=${agent.id}&status=approved`)).body.items).toHaveLength(1);
    void org_id;
  });
});
