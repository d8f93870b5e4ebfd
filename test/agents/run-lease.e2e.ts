import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { AGENT_RUN_JOB, AgentRunJob } from '../../apps/api/src/agents/runtime/agent-run.job';
import { AgentRuns } from '../../apps/api/src/agents/runtime/agent-runs';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';

/**
 * A run's own appends expect the session stream's revision the run holds: a runner whose lease
 * lapsed (a process frozen past the lease) and the runner that claimed the run after it cannot
 * both record steps. Two runners on the one job queue, driven by the test on a fixed clock.
 */
describe('agent runs: a lapsed lease', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
    // the app's own agent runner stands down: the test claims runs with two runners of its own
    await t.app.get(AgentRuns).beforeApplicationShutdown();
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  it('the runner that lost its lease records nothing of its step (only the call’s credits); the one holding the run finishes it', async () => {
    const s = await signUp(t.url);
    const a = api(t.url, s.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await a.post('/v1/agents', { name: 'Leaser', template_type: 'researcher' })).body;
    const session = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body;

    const queue = t.app.get<JobQueue>(JOB_QUEUE);
    const job = t.app.get(AgentRunJob);
    const runnerA = new JobRunner(queue, clock, { owner: 'runner-a', leaseSeconds: 60, concurrency: 1 }).register(AGENT_RUN_JOB, job);
    const runnerB = new JobRunner(queue, clock, { owner: 'runner-b', leaseSeconds: 60, concurrency: 1 }).register(AGENT_RUN_JOB, job);

    let releaseA!: () => void;
    let releaseB!: () => void;
    const usage = { input: 1000, output: 100 };
    llm.enqueue(
      // A's model call answers only after B took the run over and recorded a step
      { type: 'text', text: 'the frozen runner answers', usage, hold: new Promise<void>((r) => (releaseA = r)) },
      { type: 'tool_calls', calls: [{ id: 'call_b', name: 'strata_get_node', arguments: { action: 'get', uid: agent.node_uid } }], usage },
      { type: 'text', text: 'the runner holding the run answers', usage, hold: new Promise<void>((r) => (releaseB = r)) },
    );
    const sent = await a.post(`/v1/agents/sessions/${session.id}/message`, { content: 'Go' });
    expect(sent.status).toBe(202);
    const runId = sent.body.run_id;

    await runnerA.tick();
    await eventually(() => llm.requests.length === 1, { what: "A's model call" });
    // A is stuck past its lease: B claims the run, resumes it, calls a tool and waits on its next answer
    clock.advance(61);
    await runnerB.tick();
    await eventually(() => llm.requests.length === 3, { what: "B's second model call" });
    const before = (await a.get(`/v1/agents/sessions/${session.id}/events?limit=1000`)).body.items;
    expect(before.map((e: { type: string }) => e.type)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result']);

    // A wakes: its append expects the revision it held, B appended since, and A no longer holds the job
    releaseA();
    await runnerA.settled();
    const afterA = (await a.get(`/v1/agents/sessions/${session.id}/events?limit=1000`)).body.items;
    expect(afterA).toEqual(before);
    expect((await a.get(`/v1/agents/sessions/${session.id}`)).body.current_run).toMatchObject({ id: runId, status: 'running' });

    releaseB();
    await runnerB.settled();
    const items = (await a.get(`/v1/agents/sessions/${session.id}/events?limit=1000`)).body.items;
    expect(items.map((e: { type: string }) => e.type)).toEqual([
      'session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed',
    ]);
    expect(items.find((e: { type: string }) => e.type === 'message.assistant').data.content).toBe('the runner holding the run answers');
    const last = (await a.get(`/v1/agents/sessions/${session.id}`)).body.last_run;
    expect(last).toMatchObject({ id: runId, status: 'completed', steps: 2, tool_calls: 1 });
    // the three calls were made, so the three count; the run's own figure has the two it recorded
    const budget = (await a.get(`/v1/agents/${agent.id}`)).body.budget;
    expect(budget.used_today).toBe(last.credits * 1.5);
    const jobs = await queue.list(s.org_id, { kind: AGENT_RUN_JOB });
    expect(jobs.map((j) => j.status)).toEqual(['completed']);
  });
});
