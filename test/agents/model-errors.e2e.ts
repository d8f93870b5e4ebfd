import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { ScriptedAnthropicServer } from '@strata/ai/testing/scripted-anthropic-server';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import type { Wait } from '@strata/ai';
import { TestApp, startTestApp } from '../support/test-app';
import { runEnded, sessionEventTypes, proOwner } from '../support/agent-runs';

/**
 * The model answering 429 and 5xx during an agent run (REFERENCE §9.6, §16.2): retried up to 3
 * times with exponential back-off from 1 s, honouring Retry-After; a call that still fails fails
 * the run with `upstream_error`, naming the provider and the status and nothing of the body.
 * The back-offs are recorded, not slept.
 */

const PROTOCOLS = [
  { provider: 'openai' as const, start: () => ScriptedOpenAIChatServer.start({ apiKey: 'test-key-secret' }), overloaded: 503 },
  { provider: 'anthropic' as const, start: () => ScriptedAnthropicServer.start({ apiKey: 'test-key-secret' }), overloaded: 529 },
];

describe.each(PROTOCOLS)('an agent run when the model refuses for a while, $provider protocol', ({ provider, start, overloaded }) => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer | ScriptedAnthropicServer;
  const waits: number[] = [];
  const wait: Wait = async (ms, signal) => {
    if (signal.aborted) throw signal.reason;
    waits.push(ms);
  };
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await start();
    t = await startTestApp({
      clock,
      llmWait: wait,
      env: { STRATA_LLM_PROVIDER: provider, STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test-key-secret', STRATA_LLM_MODEL: 'scripted' },
    });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });
  beforeEach(() => {
    waits.length = 0;
  });

  it('429 with Retry-After, then a 5xx: retried after the server\'s delay and the back-off, and the run completes with one step', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Patient' })).body;
    llm.enqueue({ type: 'error', status: 429, retryAfter: '7' }, { type: 'error', status: 500 }, { type: 'text', text: 'Got there.', usage: { input: 900, output: 50 } });
    const before = llm.requests.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'Hello?' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'completed', steps: 1, error: null, credits: 1 });
    // Retry-After (7 s) is longer than the first back-off (1 s); the second back-off is 2 s
    expect(waits).toEqual([7000, 2000]);
    expect(llm.requests.length - before).toBe(3);
    // one step: the refused attempts are no inference, no credits, no model usage of their own
    expect(await sessionEventTypes(a, created.id)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'message.assistant', 'run.completed']);
    expect((await a.get(`/v1/agents/${agent.id}`)).body.usage).toMatchObject({ runs: 1, credits: 1 });
  });

  it('5xx on every attempt: after 3 retries the run fails upstream_error, its Trace closed, the session idle, nothing of the body repeated', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Unlucky' })).body;
    llm.enqueue(
      { type: 'error', status: 500 },
      { type: 'error', status: 502 },
      { type: 'error', status: overloaded },
      { type: 'error', status: 500, echoRequest: true },
    );
    const before = llm.requests.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'the secret plan is tangerine' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'failed', steps: 0, credits: 0, error: { code: 'upstream_error' } });
    expect(waits).toEqual([1000, 2000, 4000]);
    expect(llm.requests.length - before).toBe(4);
    expect(run.error.message).toContain(provider);
    expect(run.error.message).toContain('500');
    expect(await sessionEventTypes(a, created.id)).toEqual(['session.created', 'message.user', 'run.started', 'run.failed']);
    const failed = (await a.get(`/v1/agents/sessions/${created.id}/events?types=run.failed`)).body.items[0];
    expect(failed).toMatchObject({ run_id: created.run_id, data: { run_id: created.run_id, error: { code: 'upstream_error', message: run.error.message } } });
    // the key and the prompt the provider echoed appear nowhere the service answers
    for (const text of [JSON.stringify(failed), JSON.stringify(run)]) {
      expect(text).not.toContain('test-key-secret');
      expect(text).not.toContain('tangerine');
    }
    const trace = (await a.get(`/node/${run.trace_uid}`)).body;
    expect(trace.props.ended_at).toEqual(expect.any(Number));
    expect((await a.get(`/v1/agents/sessions/${created.id}`)).body).toMatchObject({ status: 'idle', current_run: null, last_run: { status: 'failed' } });
    const feed = (await a.get(`/v1/agents/activity?agent_id=${agent.id}&types=run.failed`)).body.items;
    expect(feed).toEqual([expect.objectContaining({ type: 'run.failed', run_id: created.run_id, data: { error: { code: 'upstream_error', message: run.error.message } } })]);
    expect((await a.get(`/v1/agents/${agent.id}`)).body.usage).toMatchObject({ credits: 0 });

    // the session takes the next message as usual
    llm.enqueue({ type: 'text', text: 'Back.' });
    const next = await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'again', wait: true });
    expect(next.body).toMatchObject({ output: 'Back.', run: { status: 'completed' } });
  });

  it('a 5xx in the second step of a run (after a tool call) is retried there; the tool is not called again', async () => {
    const a = await proOwner(t.url);
    const agent = (await a.post('/v1/agents', { name: 'Midstep', tools: ['strata_get_node'] })).body;
    llm.enqueue(
      { type: 'tool_calls', calls: [{ id: 'g1', name: 'strata_get_node', arguments: { uid: agent.node_uid } }] },
      { type: 'error', status: overloaded, retryAfter: '3' },
      { type: 'text', text: 'Found it.' },
    );
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'look' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    expect(run).toMatchObject({ status: 'completed', steps: 2, tool_calls: 1 });
    expect(waits).toEqual([3000]);
    expect(await sessionEventTypes(a, created.id)).toEqual(['session.created', 'message.user', 'run.started', 'inference.completed', 'tool.call', 'tool.result', 'inference.completed', 'message.assistant', 'run.completed']);
  });
});
