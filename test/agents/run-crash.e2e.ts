import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { api, signUp } from '../support/http';
import { Service, builtService, kill, removePrivateBuild, startService } from '../support/built-service';
import { sessionEventTypes } from '../support/agent-runs';

/**
 * A `wait: true` message's first commit (the message, the run's start) is deferred: it shares
 * the fsync of the run's last commit. The built service is killed with SIGKILL while the model
 * call runs, between those two commits, before the client was answered. After a restart on the
 * same data the run is either absent (its message with it) or there whole and unfinished, to be
 * resumed (REFERENCE §16.7): never half there. SIGKILL leaves the WAL's writes in the page
 * cache, so here it is there; only a machine crash within the deferral could take it back, and
 * then whole (the log's transaction), before anyone was told of it.
 */
describe('a crash between a run’s deferred start and its end', () => {
  let entry: string;
  let dataDir: string;
  let llm: ScriptedOpenAIChatServer;
  const running: Service[] = [];
  const env = () => ({ STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' });

  beforeAll(async () => {
    entry = builtService();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-agent-crash-'));
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
  }, 180_000);
  afterAll(async () => {
    for (const s of running) await kill(s);
    await llm?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    removePrivateBuild();
  });

  it('finds the run whole and unfinished, or absent with its message, after SIGKILL during the model call', async () => {
    let svc = await startService(entry, dataDir, env());
    running.push(svc);
    const user = await signUp(svc.url);
    const a = api(svc.url, user.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await a.post('/v1/agents', { name: 'Crashy' })).body;
    const session = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body;

    llm.enqueue({ type: 'hang' });
    const asked = llm.requests.length;
    const answer = a.post(`/v1/agents/sessions/${session.id}/message`, { content: 'are you there?', wait: true }).catch(() => null);
    // the run started (its commit deferred) and its model call is in flight: nobody was answered
    await eventually(() => llm.requests.length > asked, { what: 'the model call of the run' });
    await kill(svc);
    expect(await answer).toBeNull();

    svc = await startService(entry, dataDir, env());
    running.push(svc);
    const b = api(svc.url, user.access_token);
    const s = (await b.get(`/v1/agents/sessions/${session.id}`)).body;
    if (s.current_run === null) {
      // lost before any fsync covered it: then nothing of it is there
      expect(await sessionEventTypes(b, session.id)).toEqual(['session.created']);
      return;
    }
    // recorded whole, and unfinished: the job's lease (held by the killed process) lapses and
    // the run resumes from here (that resumption: run-lease.e2e.ts)
    expect(await sessionEventTypes(b, session.id)).toEqual(['session.created', 'message.user', 'run.started']);
    expect(s.current_run).toMatchObject({ status: 'running' });
  }, 180_000);
});
