import { Api, api, signUpWithKey } from '../support/http';
import { eventually as waitFor } from '@strata/domain/testing/eventually';
import { Replica, ModelReplicaPair, startModelReplicaPair } from './support/servers-mode-app';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';

/**
 * The plan limits of REFERENCE §17 and a session's one-run-at-a-time rule, decided by two API
 * replicas on one log, each counting on its own mirror. Every case races the same write on
 * both replicas at once: without the claim streams (AgentsStore.planClaim) and the session
 * stream's expected revision, both replicas find room and both write.
 */

const eventually = <T>(check: () => T | Promise<T>, what: string) => waitFor(check, { what, timeoutMs: 10_000, everyMs: 20 });

describe('servers mode: plan limits and a session’s runs decided across replicas', () => {
  let pair: ModelReplicaPair;
  let a: Replica;
  let b: Replica;
  let llm: ScriptedOpenAIChatServer;

  beforeAll(async () => {
    pair = await startModelReplicaPair({ extra: { planLimits: { pro: { agents: 1, schedules: 1, concurrent_runs: 1 } } } });
    ({ a, b, llm } = pair);
  });
  afterAll(async () => pair?.close());
  afterEach(() => expect(pair.worker.problems).toEqual([]));

  async function proOrg(): Promise<{ ka: Api; kb: Api }> {
    const s = await signUpWithKey(a.url);
    expect((await api(a.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    await eventually(async () => (await api(b.url, s.key).get('/v1/agents')).status === 200, 'agents usable on B');
    return { ka: api(a.url, s.key), kb: api(b.url, s.key) };
  }

  it('two replicas creating the last agent the plan allows, three requests each at once: one 201, five 403 plan_limit_reached (twice)', async () => {
    for (let round = 0; round < 2; round++) {
      const { ka, kb } = await proOrg();
      const all = await Promise.all([0, 1, 2].flatMap((i) => [ka.post('/v1/agents', { name: `A${i} ${round}` }), kb.post('/v1/agents', { name: `B${i} ${round}` })]));
      expect(all.map((r) => r.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
      expect(all.find((r) => r.status === 403)!.body).toMatchObject({ code: 'plan_limit_reached', limit: 'agents', max: 1, current: 1 });
      await eventually(async () => (await kb.get('/v1/agents')).body.items?.length === 1, 'the agent on B');
      expect((await ka.get('/v1/agents')).body.items).toHaveLength(1);
    }
  });

  it('two replicas creating the last schedule the plan allows at once: one 201, one 403', async () => {
    const { ka, kb } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Watcher', template_type: 'monitor' })).body;
    await eventually(async () => (await kb.get(`/v1/agents/${agent.id}`)).status === 200, 'the agent on B');
    const body = (name: string) => ({ agent_id: agent.id, name, cron: '0 7 * * *', timezone: 'UTC', message_template: 'Morning' });
    const both = await Promise.all([ka.post('/v1/agents/schedules', body('One')), kb.post('/v1/agents/schedules', body('Two'))]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 403]);
    expect(both.find((r) => r.status === 403)!.body).toMatchObject({ code: 'plan_limit_reached', limit: 'schedules' });
    await eventually(async () => (await kb.get('/v1/agents/schedules')).body.items?.length === 1, 'the schedule on B');
  });

  it('messages to two sessions on two replicas with one run slot left: one run starts, the other waits queued until the first ends', async () => {
    const { ka, kb } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Busy' })).body;
    const [s1, s2] = [(await ka.post('/v1/agents/sessions', { agent_id: agent.id })).body, (await ka.post('/v1/agents/sessions', { agent_id: agent.id })).body];
    await eventually(async () => (await kb.get(`/v1/agents/sessions/${s2.id}`)).status === 200, 'the sessions on B');
    llm.enqueue({ type: 'hang' }, { type: 'text', text: 'second done' });
    const before = llm.requests.length;
    const sent = await Promise.all([ka.post(`/v1/agents/sessions/${s1.id}/message`, { content: 'one' }), kb.post(`/v1/agents/sessions/${s2.id}/message`, { content: 'two' })]);
    expect(sent.map((r) => r.status)).toEqual([202, 202]);
    const runOf = async (sid: string) => (await ka.get(`/v1/agents/sessions/${sid}`)).body.current_run?.status ?? null;
    // one run holds the slot (its model request hangs); the other stays queued however long it waits
    await eventually(() => llm.requests.length === before + 1, 'one model call');
    const statuses = await eventually(async () => {
      const st = [await runOf(s1.id), await runOf(s2.id)];
      return st.includes('running') ? st : null;
    }, 'a run running');
    expect([...statuses].sort()).toEqual(['queued', 'running']);
    for (const k of [ka, kb]) expect((await k.get('/v1/usage')).body.runs).toMatchObject({ running: 1, queued: 1, concurrent_limit: 1 });
    expect(llm.requests.length).toBe(before + 1);

    // the running run ends (interrupted on the other replica): its slot frees and the queued run starts
    const [running, waiting] = statuses[0] === 'running' ? [s1, s2] : [s2, s1];
    expect((await kb.post(`/v1/agents/sessions/${running.id}/interrupt`, {})).body).toMatchObject({ interrupted: true });
    await eventually(async () => (await ka.get(`/v1/agents/sessions/${waiting.id}`)).body.last_run?.status === 'completed', 'the queued run completed');
    expect(llm.requests.length).toBe(before + 2);
  });

  it('two replicas taking a message for one idle session at once: one run starts, the other message queues behind it', async () => {
    const { ka, kb } = await proOrg();
    const agent = (await ka.post('/v1/agents', { name: 'Chat' })).body;
    const sid = (await ka.post('/v1/agents/sessions', { agent_id: agent.id })).body.id;
    await eventually(async () => (await kb.get(`/v1/agents/sessions/${sid}`)).status === 200, 'the session on B');
    llm.enqueue({ type: 'text', text: 'first' }, { type: 'text', text: 'second' });
    const sent = await Promise.all([ka.post(`/v1/agents/sessions/${sid}/message`, { content: 'from A' }), kb.post(`/v1/agents/sessions/${sid}/message`, { content: 'from B' })]);
    expect(sent.map((r) => r.status)).toEqual([202, 202]);
    expect(sent.map((r) => r.body.queue_position).sort()).toEqual([0, 1]);
    await eventually(async () => {
      const items = (await ka.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items as { type: string }[];
      return items.filter((e) => e.type === 'run.completed').length === 2;
    }, 'both runs completed');
    // the session's runs never overlapped: each run started after the previous one ended
    const types = ((await ka.get(`/v1/agents/sessions/${sid}/events?limit=1000`)).body.items as { type: string }[]).map((e) => e.type).filter((t) => t === 'run.started' || t === 'run.completed');
    expect(types).toEqual(['run.started', 'run.completed', 'run.started', 'run.completed']);
  });
});
