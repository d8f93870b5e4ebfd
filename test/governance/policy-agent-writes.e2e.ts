import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §13.6 with §16.4: a managed agent's built-in graph tools are governed writes of `agent:<id>`. */
describe('policies on a managed agent’s writes', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('a deny on agents refuses the tool call (denied_by_policy as its result) and records the decision; nothing is written', async () => {
    const s = await signUp(t.url);
    const o = api(t.url, s.access_token);
    expect((await o.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await o.post('/v1/agents', { name: 'Scribe', tools: ['strata_capture'] })).body;
    const policy = (await o.post('/v1/governance/policies', { name: 'agents do not observe', effect: 'deny', status: 'published', match: { principals: ['agent:*'], node_types: ['Observation'] } })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'c1', name: 'strata_capture', arguments: { action: 'observation', label: 'The tiles cracked' } }] },
      { type: 'text', text: 'I could not record it.' },
    );
    const created = await o.post('/v1/agents/sessions', { agent_id: agent.id, title: 'Notes', message: 'Record that the tiles cracked.' });
    expect(created.status).toBe(201);
    const result = await eventually(async () => {
      const items = (await o.get(`/v1/agents/sessions/${created.body.id}/events?types=tool.result`)).body.items;
      return items.length ? items[0] : null;
    }, { what: 'the tool result' });
    expect(result.data).toMatchObject({ status: 'denied', error: { code: 'denied_by_policy' }, result: { policy_uid: policy.uid } });
    expect((await o.get('/nodes?node_type=Observation')).body.items).toEqual([]);
    const decisions = (await o.get(`/v1/governance/audit?kind=policy_decision&policy_uid=${policy.uid}`)).body.items;
    expect(decisions).toHaveLength(1);
    expect(decisions[0]).toMatchObject({ principal: { kind: 'agent', id: agent.id }, route: '/reality/capture', decision: { effect: 'deny', enforced: true } });
  });

  it('the run’s own records (its Trace and each call’s Execution) are not governed writes: a policy on them cannot erase the record of a call', async () => {
    const s = await signUp(t.url);
    const o = api(t.url, s.access_token);
    expect((await o.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await o.post('/v1/agents', { name: 'Recorder', tools: ['strata_capture'] })).body;
    // a policy on every node an agent writes: the call it judges is refused; the records of the run are still written
    const policy = (await o.post('/v1/governance/policies', { name: 'agents write nothing', effect: 'deny', status: 'published', match: { principals: ['agent:*'], node_types: ['Observation', 'Execution', 'Trace'] } })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'c1', name: 'strata_capture', arguments: { action: 'observation', label: 'The valve stuck' } }] },
      { type: 'text', text: 'Refused.' },
    );
    const created = await o.post('/v1/agents/sessions', { agent_id: agent.id, title: 'Valves', message: 'Record that the valve stuck.' });
    expect(created.status).toBe(201);
    const result = await eventually(async () => {
      const items = (await o.get(`/v1/agents/sessions/${created.body.id}/events?types=tool.result`)).body.items;
      return items.length ? items[0] : null;
    }, { what: 'the tool result' });
    expect(result.data).toMatchObject({ status: 'denied', error: { code: 'denied_by_policy' } });
    expect((await o.get('/nodes?node_type=Observation')).body.items).toEqual([]);
    const executions = await eventually(async () => {
      const items = (await o.get('/nodes?node_type=Execution')).body.items;
      return items.length && items[0].props.status !== 'running' ? items : null;
    }, { what: 'the Execution closed' });
    expect(executions).toHaveLength(1);
    expect(executions[0].props).toMatchObject({ status: 'failed' });
    expect(String(executions[0].props.error)).toMatch(/^denied: /);
    expect((await o.get('/nodes?node_type=Trace')).body.items.map((n: { props: { trace_type: string } }) => n.props.trace_type)).toEqual(['execution']);
    // only the tool call was judged: one decision, on the call's route
    const decisions = (await o.get(`/v1/governance/audit?kind=policy_decision&policy_uid=${policy.uid}`)).body.items;
    expect(decisions.map((d: { route: string }) => d.route)).toEqual(['/reality/capture']);
    // and the audit shows the execution the run recorded
    expect((await o.get('/v1/governance/audit?kind=execution_started')).body.items.map((r: { subject_uid: string }) => r.subject_uid)).toEqual([executions[0].uid]);
  });
});
