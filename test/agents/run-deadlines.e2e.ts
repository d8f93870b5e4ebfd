import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUpWithKey } from '../support/http';
import { sessionEventTypes } from '../support/agent-runs';
import { RunDeadlines } from '../../apps/api/src/agents/runtime/run-deadlines';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * Deadlines of runs (REFERENCE §16.6, §17) on the injected clock: a question nobody answers
 * expires after 24 h, a run running 30 minutes fails `run_timeout`, a plan without managed
 * agents cancels the organization's runs. The tests move a FixedClock and sweep.
 */

function llmEnv(url: string) {
  return { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: url, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' };
}

async function runOf(a: Api, sid: string, runId: string) {
  const s = (await a.get(`/v1/agents/sessions/${sid}`)).body;
  return s.current_run?.id === runId ? s.current_run : s.last_run?.id === runId ? s.last_run : null;
}

async function runEnded(a: Api, sid: string, runId: string) {
  return eventually(async () => {
    const run = await runOf(a, sid, runId);
    return run && ['completed', 'failed', 'cancelled'].includes(run.status) ? run : null;
  }, { what: `run ${runId} ended` });
}

describe('run deadlines', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  const sweep = () => t.app.get(RunDeadlines).sweep();

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: llmEnv(llm.baseUrl) });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  /** an owner on Pro, and an API key of the organization (the clock moves past access tokens' lifetime) */
  async function proOwner(): Promise<{ a: Api; owner: Api; key: string }> {
    const s = await signUpWithKey(t.url);
    const owner = api(t.url, s.access_token);
    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    return { a: api(t.url, s.key), owner, key: s.key };
  }

  it('a question unanswered for 24 h expires, across a restart: the model gets input_expired and the run goes on', async () => {
    const { a, key } = await proOwner();
    const agent = (await a.post('/v1/agents', { name: 'Asker', template_type: 'monitor' })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Which region?' } }] });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'Check the numbers' })).body;
    const sid = created.id;
    const pending = await eventually(async () => {
      const p = (await a.get(`/v1/agents/sessions/${sid}/pending-input`)).body;
      return p.pending ? p.request : null;
    });
    expect(pending.expires_at).toBe(new Date((clock.now() + 24 * 3600) * 1000).toISOString());

    // a second short of the deadline: nothing expires
    clock.advance(24 * 3600 - 1);
    await sweep();
    expect((await a.get(`/v1/agents/sessions/${sid}/pending-input`)).body.pending).toBe(true);

    // the service stops; the deadline passes while it is down; the next process expires the question
    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    clock.advance(2);
    llm.enqueue({ type: 'text', text: 'Nobody answered; I assumed EU.' });
    t = await startTestApp({ clock, dataDir, env: llmEnv(llm.baseUrl) });
    const b = api(t.url, key);
    await sweep();
    const run = await runEnded(b, sid, created.run_id);
    // 24 h waiting on a person is not running time: the run completes
    expect(run).toMatchObject({ status: 'completed', error: null });
    expect((await b.get(`/v1/agents/sessions/${sid}/pending-input`)).body).toEqual({ pending: false, request: null });
    const events = (await b.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items;
    expect(events.map((e: { type: string }) => e.type)).toEqual([
      'session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'input.requested', 'input.provided', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed',
    ]);
    expect(events[6].data).toEqual({ request_id: pending.request_id, response: null, responded_by: null, expired: true });
    expect(events[7].data).toMatchObject({ tool_call_id: 'ask1', status: 'error', error: { code: 'input_expired' } });
    const sent = llm.requests[llm.requests.length - 1].body.messages;
    expect(sent[sent.length - 1]).toMatchObject({ role: 'tool', tool_call_id: 'ask1' });
    expect(sent[sent.length - 1].content).toContain('"result":{"code":"input_expired"}');
  });

  it('a run running 30 minutes fails run_timeout and its model request is aborted; time waiting on a person does not count', async () => {
    const { a } = await proOwner();
    const agent = (await a.post('/v1/agents', { name: 'Slowpoke', template_type: 'monitor' })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Go on?' } }] });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'work slowly' })).body;
    const sid = created.id;
    await eventually(async () => (await a.get(`/v1/agents/sessions/${sid}/pending-input`)).body.pending);
    // two hours waiting for the answer
    clock.advance(2 * 3600);
    await sweep();
    expect((await runOf(a, sid, created.run_id)).status).toBe('requires_action');

    // answered; the model never answers then
    llm.enqueue({ type: 'hang' });
    const asked = llm.requests.length;
    expect((await a.post(`/v1/agents/sessions/${sid}/respond`, { response: 'yes' })).status).toBe(200);
    await eventually(() => llm.requests.length === asked + 1, { what: 'the second model call' });
    clock.advance(29 * 60);
    await sweep();
    expect((await runOf(a, sid, created.run_id)).status).toBe('running');
    const queued = (await a.post(`/v1/agents/sessions/${sid}/message`, { content: 'and then?' })).body;
    llm.enqueue({ type: 'text', text: 'Next one.' });

    clock.advance(61);
    await sweep();
    const run = await runEnded(a, sid, created.run_id);
    expect(run).toMatchObject({ status: 'failed', error: { code: 'run_timeout' } });
    // the message queued behind the run is run next
    const next = await runEnded(a, sid, queued.run_id);
    expect(next.status).toBe('completed');
    const failed = (await a.get(`/v1/agents/sessions/${sid}/events?types=run.failed`)).body.items;
    expect(failed.map((e: { data: unknown }) => e.data)).toEqual([{ run_id: created.run_id, error: { code: 'run_timeout', message: expect.any(String) } }]);
    const trace = (await a.get(`/node/${run.trace_uid}`)).body;
    expect(trace.props.ended_at).toEqual(expect.any(Number));
    const feed = (await a.get('/v1/agents/activity?types=run.failed')).body.items;
    expect(feed.map((i: { run_id: string }) => i.run_id)).toContain(created.run_id);
  });

  it('a downgrade to a plan without managed agents cancels running, waiting and queued runs (plan_changed); the data stays for an upgrade', async () => {
    const { a, owner } = await proOwner();
    const agent = (await a.post('/v1/agents', { name: 'Busy', template_type: 'monitor' })).body;
    llm.enqueue({ type: 'hang' });
    const one = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'long job' })).body;
    await eventually(async () => (await runOf(a, one.id, one.run_id))?.status === 'running');
    const behind = (await a.post(`/v1/agents/sessions/${one.id}/message`, { content: 'after that' })).body;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Sure?' } }] });
    const two = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'ask me' })).body;
    await eventually(async () => (await runOf(a, two.id, two.run_id))?.status === 'requires_action');

    expect((await owner.post('/v1/billing/subscribe', { plan: 'free' })).status).toBe(200);
    await sweep();
    const refused = await a.get(`/v1/agents/sessions/${one.id}`);
    expect([refused.status, refused.body.code]).toEqual([403, 'plan_required']);

    // back on Pro: everything is still there, the runs cancelled
    expect((await owner.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const s1 = (await a.get(`/v1/agents/sessions/${one.id}`)).body;
    expect(s1).toMatchObject({ status: 'idle', current_run: null, queued_messages: 0, last_run: { id: one.run_id, status: 'cancelled' } });
    const s2 = (await a.get(`/v1/agents/sessions/${two.id}`)).body;
    expect(s2).toMatchObject({ status: 'idle', pending_input: null, last_run: { id: two.run_id, status: 'cancelled' } });
    const cancelled = (await a.get(`/v1/agents/sessions/${one.id}/events?types=run.cancelled`)).body.items;
    expect(cancelled.map((e: { data: unknown }) => e.data)).toEqual([{ run_id: one.run_id, reason: 'plan_changed', discarded_message_ids: [behind.message_id] }]);
    expect((await sessionEventTypes(a, two.id)).slice(-1)).toEqual(['run.cancelled']);
    const feed = (await a.get('/v1/agents/activity?types=run.cancelled')).body.items;
    expect(feed.map((i: { run_id: string; data: { reason: string } }) => [i.run_id, i.data.reason]).sort()).toEqual([[one.run_id, 'plan_changed'], [two.run_id, 'plan_changed']].sort());
    // an upgrade runs new messages again
    llm.enqueue({ type: 'text', text: 'Back.' });
    const again = await a.post(`/v1/agents/sessions/${one.id}/message`, { content: 'hello again', wait: true });
    expect([again.status, again.body.output]).toEqual([200, 'Back.']);
  });
});
