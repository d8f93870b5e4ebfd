import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { eventually } from '@strata/domain/testing/eventually';
import { at } from '@strata/domain/testing/fixed-time';
import { FixedClock } from '@strata/domain/time';
import { openSse } from '@strata/live/testing/sse-client';
import { OAuthServer, authorizeInBrowser, startOAuthServer } from '../mcp/support/oauth-server';
import { ToolServer, startToolServer } from '../mcp/support/tool-server';
import { Api, api, request, signUp } from '../support/http';
import { AnswerRecorder } from '../support/openapi-answers';
import { TestApp, startTestApp } from '../support/test-app';

/**
 * The operations this file holds to their documented answers: every one must be called below.
 * Tool grants are checked with governance; the OAuth callback (HTML) and the session stream
 * (SSE) answer no JSON body and are checked by their media type below; the activity WebSocket
 * is an upgrade.
 */
const COVERED = [/^\w+ \/v1\/mcp\/(?!oauth\/callback)/, /^\w+ \/v1\/agents(?!\/\{id\}\/tool-grants|\/sessions\/\{sid\}\/stream|\/activity\/ws)/];

/**
 * The MCP connection, registry and approval routes and the managed agent routes (REFERENCE
 * §15, §16) answer what the OpenAPI document says, checked as for the graph routes
 * (test/support/openapi-answers.ts): real HTTP and auth, an MCP tool server built with the
 * official SDK and an OAuth authorization server on loopback, a scripted model server, and
 * each body validated against the declared 2xx schema with every object closed.
 */
describe('the OpenAPI document describes what the MCP and managed agent routes answer', () => {
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  let tools: ToolServer;
  let as: OAuthServer;
  let oauthTools: ToolServer;
  let doc: any;
  const answers = new AnswerRecorder();
  const { checked, failures } = answers;

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    tools = await startToolServer({ tools: [{ name: 'add', description: 'Adds two numbers.', readOnly: true }, { name: 'wipe', description: 'Deletes everything.', destructive: true }] });
    as = await startOAuthServer();
    oauthTools = await startToolServer({ tools: [{ name: 'add', description: 'Adds.' }], oauth: as });
    t = await startTestApp({ clock, accessTokenTtl: 7 * 86400, env: { STRATA_MCP_ALLOW_PRIVATE: 'true', STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
    answers.use(doc);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await tools?.close();
    await oauthTools?.close();
    await as?.close();
    await llm?.close();
  });

  /** One call, recorded: a wrong status or an undocumented answer is collected, so one run names them all. */
  async function call(c: Api | null, method: string, url: string, template: string, body?: unknown, status = 200, note = '') {
    const r = c
      ? await (method === 'GET' ? c.get(url) : method === 'DELETE' ? c.delete(url) : method === 'PATCH' ? c.patch(url, body) : method === 'PUT' ? c.put(url, body) : c.post(url, body))
      : await request(t.url, method, url);
    return answers.record(method, url, template, r, status, note);
  }
  /** the media type the document declares for a 2xx answer, which the answer's content-type must carry */
  function declaredMedia(path: string, status: number): string[] {
    return Object.keys(doc.paths[path].get.responses[String(status)]?.content ?? {});
  }
  const ok = async (r: Promise<{ status: number; body: any; text: string }>) => {
    const x = await r;
    if (x.status >= 300) throw new Error(`${x.status} ${x.text}`);
    return x.body;
  };

  it('connections, registry, approvals, agents, sessions, schedules and activity', async () => {
    const owner = await signUp(t.url);
    const a = api(t.url, owner.access_token);
    await ok(a.post('/v1/billing/subscribe', { plan: 'team' }));

    // connections
    const M = '/v1/mcp';
    await call(a, 'POST', `${M}/inspect`, `${M}/inspect`, { url: tools.url, auth: { type: 'none' } });
    await call(a, 'POST', `${M}/inspect`, `${M}/inspect`, { url: oauthTools.url }, 200, 'oauth');
    const conn = await call(a, 'POST', `${M}/connections`, `${M}/connections`, { name: 'Calc', url: tools.url, auth: { type: 'none' } }, 201);
    let pending = await call(a, 'POST', `${M}/connections`, `${M}/connections`, { name: 'OAuth tools', url: oauthTools.url, auth: { type: 'oauth' } }, 201, 'oauth');
    pending = await call(a, 'POST', `${M}/connections/${pending.id}/reauthorize`, `${M}/connections/{id}/reauthorize`, {});
    await call(a, 'GET', `${M}/connections`, `${M}/connections`);
    // the user's browser at the authorization server, sent back to the callback: an HTML page
    const callback = await fetch(await authorizeInBrowser(pending.authorization.url), { redirect: 'manual' });
    expect([callback.status, callback.headers.get('content-type')?.split(';')[0]]).toEqual([200, 'text/html']);
    expect(declaredMedia(`${M}/oauth/callback`, 200)).toEqual(['text/html']);
    expect(await callback.text()).toContain('OAuth tools is connected.');
    await call(a, 'GET', `${M}/connections/${conn.id}`, `${M}/connections/{id}`);
    tools.tools.push({ name: 'mul', description: 'Multiplies two numbers.' });
    tools.tools[0].description = 'Adds two numbers, exactly.';
    await call(a, 'POST', `${M}/connections/${conn.id}/sync`, `${M}/connections/{id}/sync`, {});
    await call(a, 'PATCH', `${M}/connections/${conn.id}`, `${M}/connections/{id}`, { approval_mode: 'per_tool', tool_approvals: { add: 'always', mul: 'never' }, acknowledge_drift: ['mul'] });
    await call(a, 'GET', `${M}/registry`, `${M}/registry`);
    await call(null, 'GET', `${M}/oauth/client-metadata.json`, `${M}/oauth/client-metadata.json`);
    await call(a, 'DELETE', `${M}/connections/${pending.id}`, `${M}/connections/{id}`);

    // agents
    const A = '/v1/agents';
    await call(a, 'GET', `${A}/templates`, `${A}/templates`);
    const agent = await call(a, 'POST', A, A, { name: 'Calculator', description: 'adds', tools: ['strata_get_node', 'ask_user'] }, 201);
    await call(a, 'PATCH', `${A}/${agent.id}`, `${A}/{id}`, { daily_credit_budget: 500, max_steps: 10 });
    await call(a, 'GET', A, A);
    const add = (await ok(a.get(`${M}/registry?connection_id=${conn.id}`))).tools.find((x: any) => x.name === 'add');
    await ok(a.put(`${A}/${agent.id}/tool-grants/${add.affordance_uid}`, {}));
    await ok(a.post('/node', { node_type: 'Article', label: 'Sums', agent_id: agent.id, props: { content: '2 + 3 = 5' } }));

    // sessions: a run that waits on an approval, one on the user's answer
    const S = `${A}/sessions`;
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'g1', name: add.model_name, arguments: { a: 2, b: 3 } }] }, { type: 'text', text: 'Five.' });
    const s1 = await call(a, 'POST', S, S, { agent_id: agent.id, title: 'Sums', metadata: { ticket: 7 }, message: 'add 2 and 3' }, 201);
    const approval = await eventually(async () => (await ok(a.get(`${M}/approvals?session_id=${s1.id}&status=pending`))).items[0] ?? null, { what: 'a pending approval' });
    await call(a, 'GET', `${M}/approvals`, `${M}/approvals`);
    await call(a, 'GET', `${M}/approvals/${approval.id}`, `${M}/approvals/{id}`);
    await call(a, 'GET', `${A}/${agent.id}/work`, `${A}/{id}/work`);
    await call(a, 'POST', `${M}/approvals/${approval.id}/resolve`, `${M}/approvals/{id}/resolve`, { decision: 'allow', reason: 'fine', scope: 'once' });
    await eventually(async () => (await ok(a.get(`${S}/${s1.id}`))).status === 'idle', { what: 'the first run ended' });

    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'g2', name: add.model_name, arguments: { a: 1, b: 1 } }] }, { type: 'text', text: 'Two.' });
    await call(a, 'POST', `${S}/${s1.id}/message`, `${S}/{sid}/message`, { content: 'add 1 and 1' }, 202, 'queued');
    const second = await eventually(async () => (await ok(a.get(`${M}/approvals?session_id=${s1.id}&status=pending`))).items[0] ?? null, { what: 'a second approval' });
    await call(a, 'POST', `${A}/${agent.id}/resolve-decision`, `${A}/{id}/resolve-decision`, { decision_id: second.id, decision: 'deny', reason: 'no' });
    await eventually(async () => (await ok(a.get(`${S}/${s1.id}`))).status === 'idle', { what: 'the second run ended' });
    llm.enqueue({ type: 'text', text: 'Hello!' });
    await call(a, 'POST', `${S}/${s1.id}/message`, `${S}/{sid}/message`, { content: 'hi', wait: true }, 200, 'waited');

    const s2 = await ok(a.post(S, { agent_id: agent.id }));
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'ask1', name: 'ask_user', arguments: { question: 'Which numbers?', options: ['2 and 3', '1 and 1'] } }] }, { type: 'text', text: 'Noted.' });
    await ok(a.post(`${S}/${s2.id}/message`, { content: 'add something' }));
    await eventually(async () => (await ok(a.get(`${S}/${s2.id}/pending-input`))).pending === true, { what: 'a pending input' });
    await call(a, 'GET', `${S}/${s2.id}/pending-input`, `${S}/{sid}/pending-input`, undefined, 200, 'pending');
    await call(a, 'GET', `${S}/${s2.id}`, `${S}/{sid}`, undefined, 200, 'requires_action');
    await call(a, 'POST', `${S}/${s2.id}/respond`, `${S}/{sid}/respond`, { response: '2 and 3' });
    await eventually(async () => (await ok(a.get(`${S}/${s2.id}`))).status === 'idle', { what: 'the answered run ended' });
    await call(a, 'GET', `${S}/${s2.id}/pending-input`, `${S}/{sid}/pending-input`, undefined, 200, 'none');

    // an interrupted run: the model is asked again while the approval waits
    llm.enqueue({ type: 'tool_calls', calls: [{ id: 'g3', name: add.model_name, arguments: { a: 4, b: 4 } }] });
    await ok(a.post(`${S}/${s2.id}/message`, { content: 'add 4 and 4' }));
    await eventually(async () => (await ok(a.get(`${M}/approvals?session_id=${s2.id}&status=pending`))).items[0] ?? null, { what: 'a third approval' });
    await call(a, 'POST', `${S}/${s2.id}/interrupt`, `${S}/{sid}/interrupt`, {}, 200, 'interrupted');
    await call(a, 'POST', `${S}/${s2.id}/interrupt`, `${S}/{sid}/interrupt`, {}, 200, 'idle');

    await call(a, 'GET', `${S}/${s1.id}`, `${S}/{sid}`);
    const live = await openSse(`${t.url}${S}/${s1.id}/stream?after=0`, { authorization: `Bearer ${owner.access_token}` });
    expect([live.res.status, live.res.headers.get('content-type')?.split(';')[0]]).toEqual([200, 'text/event-stream']);
    expect(declaredMedia(`${S}/{sid}/stream`, 200)).toEqual(['text/event-stream']);
    let first = await live.nextEvent();
    while (first && !first.event) first = await live.nextEvent(); // the retry: line comes first
    expect(first?.event).toBe('ready');
    live.close();
    await call(a, 'GET', S, S);
    await call(a, 'GET', `${S}/${s1.id}/events?limit=1000`, `${S}/{sid}/events`);
    await call(a, 'GET', `${S}/${s2.id}/events?limit=1000`, `${S}/{sid}/events`, undefined, 200, 'input and interrupt');
    await call(a, 'POST', `${S}/${s2.id}/archive`, `${S}/{sid}/archive`, {});

    // schedules
    const SC = `${A}/schedules`;
    const sched = await call(a, 'POST', SC, SC, { agent_id: agent.id, name: 'Morning sums', cron: '0 7 * * 1-5', timezone: 'Europe/Paris', message_template: 'Sums for {{date}}' }, 201);
    await call(a, 'PATCH', `${SC}/${sched.id}`, `${SC}/{id}`, { enabled: false });
    await call(a, 'GET', SC, SC);
    await call(a, 'DELETE', `${SC}/${sched.id}`, `${SC}/{id}`);

    await call(a, 'GET', `${A}/activity`, `${A}/activity`);
    await call(a, 'GET', `${A}/${agent.id}/articles`, `${A}/{id}/articles`);
    await call(a, 'GET', `${A}/${agent.id}`, `${A}/{id}`);
    await call(a, 'POST', `${A}/${agent.id}/archive`, `${A}/{id}/archive`, {});

    expect(failures).toEqual([]);
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((op) => COVERED.some((re) => re.test(op)));
    expect(ops.filter((op) => !checked.has(op))).toEqual([]);
  });
});
