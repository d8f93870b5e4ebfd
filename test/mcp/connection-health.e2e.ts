import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { at } from '@strata/domain/testing/fixed-time';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { Scheduler } from '@strata/jobs/schedules/scheduler';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, login, signUp } from '../support/http';
import { runEnded } from '../support/agent-runs';
import { OAuthServer, authorizeInBrowser, startOAuthServer } from './support/oauth-server';
import { ToolServer, startToolServer } from './support/tool-server';

/**
 * A connection's health while agents use it (REFERENCE §15.3, §15.5, §15.7, §16.6): an OAuth
 * access token refused mid-call is refreshed once and the call retried once, then the
 * connection is `error`/`auth_failed`; connections in `error` are synced again automatically
 * five minutes after their failure (never after `auth_failed`); an interrupted run's tool call
 * is cancelled at the server with `notifications/cancelled`. Real MCP servers built with the
 * SDK and a real local OAuth server on loopback, a scripted model server, a FixedClock.
 */

async function approveInBrowser(authorizationUrl: string): Promise<void> {
  const back = await fetch(await authorizeInBrowser(authorizationUrl), { redirect: 'manual' });
  expect(back.status).toBe(200);
}

async function toolResults(a: Api, sid: string) {
  return ((await a.get(`/v1/agents/sessions/${sid}/events?limit=1000&types=tool.result`)).body.items as { data: any }[]).map((e) => e.data);
}

describe('MCP connection health: token refresh mid-call, automatic re-sync, cancellation on interrupt', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let as: OAuthServer;
  let oauthTools: ToolServer;
  let plainTools: ToolServer;
  let user: Awaited<ReturnType<typeof signUp>>;
  let a: Api;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    as = await startOAuthServer();
    oauthTools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }], oauth: as });
    plainTools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }, { name: 'slow', description: 'Takes its time.', hang: true }] });
    t = await startTestApp({ clock, env: { STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
    user = await signUp(t.url);
    a = api(t.url, user.access_token);
    expect((await a.post('/v1/billing/subscribe', { plan: 'team' })).status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await plainTools?.close();
    await oauthTools?.close();
    await as?.close();
    await llm?.close();
  });

  /** the user's access token expires while the clock moves */
  async function relogin() {
    a = api(t.url, (await login(t.url, user.email, user.password)).access_token);
  }

  /** an agent granted these tools of a connection (approval_mode never) */
  async function agentWith(name: string, connectionId: string, toolNames: string[]) {
    const registry = (await a.get(`/v1/mcp/registry?connection_id=${connectionId}`)).body.tools as { name: string; model_name: string; affordance_uid: string }[];
    const agent = (await a.post('/v1/agents', { name, tools: ['strata_get_node'] })).body;
    const granted = registry.filter((x) => toolNames.includes(x.name));
    for (const g of granted) expect((await a.put(`/v1/agents/${agent.id}/tool-grants/${g.affordance_uid}`, {})).status).toBe(201);
    return { agent, tools: Object.fromEntries(granted.map((g) => [g.name, g.model_name])) as Record<string, string> };
  }

  async function callOnce(agentId: string, modelName: string, callId: string, answer: string) {
    llm.enqueue({ type: 'tool_calls', calls: [{ id: callId, name: modelName, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: answer });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agentId, message: 'call it' })).body;
    const run = await runEnded(a, created.id, created.run_id);
    return { run, results: await toolResults(a, created.id) };
  }

  let oauthId: string;

  it('OAuth: a 401 in the middle of a tool call gets one refresh and the call one retry', async () => {
    const res = await a.post('/v1/mcp/connections', { name: 'OAuth tools', url: oauthTools.url, auth: { type: 'oauth' }, approval_mode: 'never' });
    expect(res.status).toBe(201);
    oauthId = res.body.id;
    await approveInBrowser(res.body.authorization.url);
    expect((await a.get(`/v1/mcp/connections/${oauthId}`)).body.status).toBe('active');
    const { agent, tools } = await agentWith('OAuth caller', oauthId, ['add']);
    const grantsBefore = (await as.grants()).length;
    // the access token expires at the authorization server before Strata expects it to: the next call is refused with 401
    await as.advanceClock(3600);
    const { run, results } = await callOnce(agent.id, tools.add, 'r1', 'Five.');
    expect(run.status).toBe('completed');
    expect(results[0]).toMatchObject({ tool_call_id: 'r1', status: 'ok', result: '5' });
    expect((await as.grants()).slice(grantsBefore)).toEqual(['refresh_token']);
    const c = (await a.get(`/v1/mcp/connections/${oauthId}`)).body;
    expect(c).toMatchObject({ status: 'active', last_error: null, auth: { oauth: { has_refresh_token: true } } });

    // a refresh the authorization server refuses: the access token is revoked there, and with it
    // (as oidc-provider does) every token of its grant; the call fails auth_failed, the connection is error
    await as.revokeAccessToken(oauthTools.seenAuth.filter((h): h is string => !!h).at(-1)!.replace(/^Bearer /, ''));
    const seen = oauthTools.seenHeaders.length;
    const failed = await callOnce(agent.id, tools.add, 'r2', 'Could not.');
    expect(failed.run.status).toBe('completed');
    expect(failed.results[0]).toMatchObject({ tool_call_id: 'r2', status: 'error', error: { code: 'auth_failed' } });
    const after = (await a.get(`/v1/mcp/connections/${oauthId}`)).body;
    expect(after).toMatchObject({ status: 'error', last_error: { code: 'auth_failed' } });
    // one request refused, then one refresh refused: the call is not tried again
    expect(oauthTools.seenHeaders.length - seen).toBe(1);
    expect((await as.grants()).slice(grantsBefore)).toEqual(['refresh_token']);
    expect(await as.refusedGrants()).toEqual(['refresh_token: invalid_grant']);
  });

  it('a connection in error is synced again automatically five minutes after its failure, unless auth_failed', async () => {
    const scheduler = t.app.get(Scheduler);
    const resyncSchedule = () => scheduler.get('_platform', 'mcp-connection-resync');
    // nothing waits for a re-sync (the OAuth connection needs a person): nothing is scheduled
    expect(await resyncSchedule()).toBeNull();
    const res = await a.post('/v1/mcp/connections', { name: 'Flaky tools', url: plainTools.url, auth: { type: 'none' }, approval_mode: 'never' });
    expect(res.status).toBe(201);
    const id = res.body.id;
    plainTools.failWith = 503;
    const failed = await a.post(`/v1/mcp/connections/${id}/sync`, {});
    expect([failed.status, failed.body.code, failed.body.connection.status]).toEqual([502, 'mcp_sync_failed', 'error']);
    const failedAt = (await a.get(`/v1/mcp/connections/${id}`)).body.last_error.at;
    expect(failedAt).toBe('2030-01-01T12:00:00.000Z');
    plainTools.failWith = null;
    expect(await eventually(resyncSchedule, { what: 'the re-sync scheduled' })).toMatchObject({ interval_s: 60, job_kind: 'mcp_connection_resync' });
    const oauthRequests = (await as.grants()).length + oauthTools.seenHeaders.length;

    const queue = t.app.get<JobQueue>(JOB_QUEUE);
    const rounds = async () => (await queue.list('_platform', { kind: 'mcp_connection_resync', status: 'completed' })).length;
    const before = await rounds();
    const flakyRequests = plainTools.seenHeaders.length;
    clock.advance(240);
    await relogin();
    // four minutes on: a round ran and found nothing due yet
    await eventually(async () => (await rounds()) > before || null, { what: 'a re-sync round' });
    expect((await a.get(`/v1/mcp/connections/${id}`)).body.status).toBe('error');
    expect(plainTools.seenHeaders.length).toBe(flakyRequests);

    clock.advance(60);
    const back = await eventually(async () => {
      const c = (await a.get(`/v1/mcp/connections/${id}`)).body;
      return c.status === 'active' ? c : null;
    }, { what: 'the automatic sync brought the connection back' });
    expect(back).toMatchObject({ status: 'active', last_error: null, last_sync_at: '2030-01-01T12:05:00.000Z' });
    // the OAuth connection whose credentials failed was left alone: no request to its servers
    expect((await a.get(`/v1/mcp/connections/${oauthId}`)).body).toMatchObject({ status: 'error', last_error: { code: 'auth_failed' } });
    expect((await as.grants()).length + oauthTools.seenHeaders.length).toBe(oauthRequests);
    // nothing waits any more: the schedule is gone
    await eventually(async () => (await resyncSchedule()) === null || null, { what: 'the re-sync unscheduled' });
  });

  it('an interrupt during an MCP call sends notifications/cancelled to the tool server; the connection stays active', async () => {
    const res = await a.post('/v1/mcp/connections', { name: 'Slow tools', url: plainTools.url, auth: { type: 'none' }, approval_mode: 'never' });
    expect(res.status).toBe(201);
    const { agent, tools } = await agentWith('Slow caller', res.body.id, ['slow']);
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'i1', name: tools.slow, arguments: { a: 1 } }] });
    const created = (await a.post('/v1/agents/sessions', { agent_id: agent.id, message: 'take your time' })).body;
    const seen = plainTools.seenMethods.length;
    await eventually(async () => plainTools.seenMethods.slice(seen).includes('tools/call') || null, { what: 'the tool call reached the server' });
    const stop = await a.post(`/v1/agents/sessions/${created.id}/interrupt`, {});
    expect(stop.body).toMatchObject({ interrupted: true, run_id: created.run_id });
    await eventually(async () => plainTools.seenMethods.slice(seen).includes('notifications/cancelled') || null, { what: 'notifications/cancelled reached the server' });
    plainTools.release();
    expect((await runEnded(a, created.id, created.run_id)).status).toBe('cancelled');
    expect((await a.get(`/v1/agents/sessions/${created.id}`)).body.status).toBe('idle');
    // an interrupt is not a failure of the server
    expect((await a.get(`/v1/mcp/connections/${res.body.id}`)).body).toMatchObject({ status: 'active', last_error: null });
  });
});
