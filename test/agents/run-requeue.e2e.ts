import * as path from 'node:path';
import Database from 'better-sqlite3';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { runEnded } from '../support/agent-runs';

/**
 * A run the log holds as unfinished is resumed after a restart even when its job is gone: the
 * embedded job queue is not fsynced at each write, so a power cut can lose the job of a run
 * whose message was acknowledged (its events are in the log, which is). Simulated by deleting
 * the queue's rows while the service is down.
 */
describe('an unfinished run whose job was lost', () => {
  let t: TestApp | null = null;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  const env = () => ({ STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' });

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
  });
  afterAll(async () => {
    await t?.close();
    await llm?.close();
  });

  it('is enqueued again at start and runs to its answer, and the message queued behind it after it', async () => {
    t = await startTestApp({ clock, env: env() });
    const user = await signUp(t.url);
    const a: Api = api(t.url, user.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await a.post('/v1/agents', { name: 'Survivor' })).body;
    llm.enqueue({ type: 'hang' });
    const asked = llm.requests.length;
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'first' })).body;
    await eventually(() => llm.requests.length === asked + 1, { what: 'the model request' });
    const queued = (await a.post(`/v1/agents/sessions/${created.id}/message`, { content: 'second' })).body;
    expect(queued).toMatchObject({ run_status: 'queued', queue_position: 1 });

    const dataDir = t.dataDir;
    await t.close({ keepData: true });
    t = null;
    const ops = new Database(path.join(dataDir, 'ops.db'));
    expect(ops.prepare("DELETE FROM queued_jobs WHERE kind = 'agent_run'").run().changes).toBe(2);
    ops.close();

    llm.enqueue({ type: 'text', text: 'First, at last.' }, { type: 'text', text: 'Second.' });
    t = await startTestApp({ clock, dataDir, env: env() });
    const b = api(t.url, user.access_token);
    expect(await runEnded(b, created.id, created.run_id)).toMatchObject({ status: 'completed', steps: 1 });
    expect(await runEnded(b, created.id, queued.run_id)).toMatchObject({ status: 'completed', steps: 1 });
    const answers = (await b.get(`/v1/agents/sessions/${created.id}/events?types=message.assistant`)).body.items.map((e: { data: { content: string } }) => e.data.content);
    expect(answers).toEqual(['First, at last.', 'Second.']);
  });
});
