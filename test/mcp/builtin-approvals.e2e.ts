import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { at } from '@strata/domain/testing/fixed-time';
import { ApprovalExpiry } from '@strata/mcp/approvals';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, login, signUp } from '../support/http';
import { runEnded } from '../support/agent-runs';

/**
 * Approvals of built-in graph tools (REFERENCE §15.10, §16.4, §16.5): a policy that holds an
 * agent's graph write for a person makes a `builtin_tool` approval and the run waits, exactly
 * as an MCP call's approval does; nothing is written until it is allowed. Real HTTP and auth,
 * a scripted OpenAI-protocol model server, a FixedClock moved for the expiry.
 */

async function events(a: Api, sid: string, types?: string) {
  return (await a.get(`/v1/agents/sessions/${sid}/events?limit=1000${types ? `&types=${types}` : ''}`)).body.items as { type: string; data: any }[];
}

async function articles(a: Api, label: string) {
  const found = (await a.get(`/nodes?type=Article&limit=100`)).body;
  const items = (Array.isArray(found) ? found : found.items ?? found.nodes ?? []) as { label: string }[];
  return items.filter((n) => n.label === label);
}

describe('approvals of built-in graph tools', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  /** a Team organization, an agent that may write articles, and a published policy on its Article writes */
  async function setUp(name: string, effect: 'require_approval' | 'deny') {
    const s = await signUp(t.url);
    const a = api(t.url, s.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
    const agent = (await a.post('/v1/agents', { name, tools: ['strata_write_article', 'strata_get_node'] })).body;
    const policy = await a.post('/v1/governance/policies', { name: `${name} articles`, effect, match: { principals: [`agent:${agent.id}`], node_types: ['Article'] }, status: 'published' });
    expect(policy.status).toBe(201);
    return { a, agent, policy: policy.body, org_id: s.org_id, user: s };
  }

  /** a session whose run writes one article; the model's next answer is `answer` */
  async function write(a: Api, agentId: string, callId: string, label: string, answer: string | null) {
    llm.enqueue({ type: 'tool_calls', calls: [{ id: callId, name: 'strata_write_article', arguments: { action: 'create', label, content: 'Body.' } }] });
    if (answer !== null) llm.enqueue({ type: 'text', text: answer });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agentId, message: `write ${label}` })).body;
    return { sid: created.id as string, runId: created.run_id as string };
  }

  async function pendingApproval(a: Api, sid: string) {
    return eventually(async () => {
      const list = (await a.get(`/v1/mcp/approvals?session_id=${sid}&status=pending&kind=all`)).body.items;
      return list.length ? list[0] : null;
    }, { what: 'a pending approval' });
  }

  it('require_approval: the write becomes a builtin_tool approval, the run requires_action, nothing is written until a person allows', async () => {
    const { a, agent, policy } = await setUp('Writer', 'require_approval');
    const { sid, runId } = await write(a, agent.id, 'w1', 'Held article', 'Written.');
    const approval = await pendingApproval(a, sid);
    expect(approval).toMatchObject({
      status: 'pending', kind: 'builtin_tool', connection_id: null, connection_name: null, tool_name: 'strata_write_article', model_name: 'strata_write_article', affordance_uid: null,
      arguments: { action: 'create', label: 'Held article' }, reasons: [{ source: 'policy', policy_uid: policy.uid }], agent_id: agent.id, session_id: sid, run_id: runId, tool_call_id: 'w1',
      requested_at: '2030-01-01T12:00:00.000Z', expires_at: '2030-01-01T13:00:00.000Z',
    });
    // the default list is the MCP tools' approvals only
    expect((await a.get(`/v1/mcp/approvals?session_id=${sid}`)).body.items).toEqual([]);
    expect((await a.get(`/v1/agents/sessions/${sid}`)).body).toMatchObject({ status: 'requires_action', pending_approvals: 1, current_run: { status: 'requires_action' } });
    expect((await a.get(`/v1/agents/${agent.id}/work`)).body.pending_decisions.map((d: { id: string }) => d.id)).toEqual([approval.id]);
    const node = (await a.get(`/node/${approval.id}`)).body;
    expect(node).toMatchObject({ node_type: 'Approval', props: { status: 'pending', target_type: 'builtin_tool', target_uid: null } });
    expect(await articles(a, 'Held article')).toEqual([]);
    // no request Approval was made for the held write: the tool approval is the only one
    const pendingNodes = (await a.get('/approvals/pending')).body as { uid: string; props: { target_type: string } }[];
    expect(pendingNodes.filter((n) => n.props.target_type === 'request')).toEqual([]);
    // graph routes never settle it
    const patched = await a.patch(`/node/${approval.id}`, { props: { status: 'approved' } });
    expect([patched.status, patched.body.code]).toEqual([409, 'invalid_transition']);

    expect((await a.post(`/v1/mcp/approvals/${approval.id}/resolve`, { decision: 'allow', reason: 'ok' })).status).toBe(200);
    const run = await runEnded(a, sid, runId);
    expect(run.status).toBe('completed');
    const result = (await events(a, sid, 'tool.result'))[0].data;
    expect(result).toMatchObject({ tool_call_id: 'w1', status: 'ok' });
    expect(await articles(a, 'Held article')).toHaveLength(1);
    const types = (await events(a, sid)).map((e) => e.type);
    expect(types).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'approval.requested', 'approval.resolved', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed']);
    expect((await a.get(`/node/${approval.id}`)).body.props).toMatchObject({ status: 'approved', reason: 'ok' });
    // the governance audit names the approval the write ran under
    const audit = JSON.stringify((await a.get('/v1/governance/audit?limit=100')).body);
    expect(audit).toContain(approval.id);
  });

  it('deny: the model gets approval_denied and nothing is written; an interrupt cancels a pending one', async () => {
    const { a, agent } = await setUp('Refused writer', 'require_approval');
    const one = await write(a, agent.id, 'd1', 'Denied article', 'Not allowed.');
    const approval = await pendingApproval(a, one.sid);
    expect((await a.post(`/v1/agents/${agent.id}/resolve-decision`, { decision_id: approval.id, decision: 'deny', reason: 'no' })).body.status).toBe('denied');
    expect((await runEnded(a, one.sid, one.runId)).status).toBe('completed');
    expect((await events(a, one.sid, 'tool.result'))[0].data).toMatchObject({ tool_call_id: 'd1', status: 'denied', error: { code: 'approval_denied' } });
    expect(await articles(a, 'Denied article')).toEqual([]);

    const two = await write(a, agent.id, 'd2', 'Interrupted article', null);
    const second = await pendingApproval(a, two.sid);
    expect((await a.post(`/v1/agents/sessions/${two.sid}/interrupt`, {})).body).toMatchObject({ interrupted: true });
    expect((await a.get(`/v1/mcp/approvals/${second.id}`)).body).toMatchObject({ status: 'cancelled', resolution_reason: 'interrupted' });
    expect(await articles(a, 'Interrupted article')).toEqual([]);
  });

  it('expiry: a built-in approval lasts 3600 s on the clock, then the model gets approval_expired', async () => {
    const { a: first, agent, user } = await setUp('Slow writer', 'require_approval');
    const { sid, runId } = await write(first, agent.id, 'e1', 'Expired article', 'Nobody answered.');
    const approval = await pendingApproval(first, sid);
    clock.advance(3599);
    // the user's access token has expired meanwhile
    const a = api(t.url, (await login(t.url, user.email, user.password)).access_token);
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body.status).toBe('pending');
    clock.advance(1);
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body.status).toBe('expired');
    await t.app.get(ApprovalExpiry).sweep();
    expect((await runEnded(a, sid, runId)).status).toBe('completed');
    expect((await a.get(`/v1/mcp/approvals/${approval.id}`)).body.status).toBe('expired');
    expect((await events(a, sid, 'tool.result'))[0].data).toMatchObject({ status: 'error', error: { code: 'approval_expired' } });
    expect(await articles(a, 'Expired article')).toEqual([]);
  });

  it('a policy deny refuses the built-in call as denied_by_policy, with no approval', async () => {
    const { a, agent, policy } = await setUp('Forbidden writer', 'deny');
    const { sid, runId } = await write(a, agent.id, 'x1', 'Forbidden article', 'Refused.');
    expect((await runEnded(a, sid, runId)).status).toBe('completed');
    expect((await events(a, sid, 'tool.result'))[0].data).toMatchObject({ status: 'denied', error: { code: 'denied_by_policy' }, result: { policy_uid: policy.uid } });
    expect((await a.get(`/v1/mcp/approvals?session_id=${sid}&kind=all`)).body.items).toEqual([]);
    expect(await articles(a, 'Forbidden article')).toEqual([]);
  });
});
