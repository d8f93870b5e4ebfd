import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, request, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';
import { seedBriefWorld } from '../briefs/brief-world';
import { mk } from '../retrieval/retrieval-fixture';
import { AgentsReadModel } from '@strata/projections/agents/agents-read-model';

/** Managed agents (REFERENCE §16.1–16.3, §17): plan gate, create with template defaults, PATCH, pause, archive. */
describe('managed agents', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T12:00:00Z'));

  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({
      clock,
      env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted', STRATA_LLM_MODELS: 'scripted,scripted-large' },
    });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  async function proOrg() {
    const s = await signUp(t.url);
    const up = await api(t.url, s.access_token).post('/v1/billing/subscribe', { plan: 'pro' });
    expect(up.status).toBe(200);
    return s;
  }

  it('the free plan gets 403 plan_required on every agent route, before the body is read', async () => {
    const s = await signUp(t.url);
    const a = api(t.url, s.access_token);
    for (const [method, path, body] of [
      ['POST', '/v1/agents', {}],
      ['GET', '/v1/agents', undefined],
      ['GET', '/v1/agents/templates', undefined],
      ['GET', '/v1/agents/x', undefined],
    ] as const) {
      const r = method === 'POST' ? await a.post(path, body) : await a.get(path);
      expect([path, r.status, r.body.code, r.body.required_plan]).toEqual([path, 403, 'plan_required', 'pro']);
    }
  });

  it('creates an agent from a template, with its Agent node; lists, reads and refuses bad input', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const templates = await a.get('/v1/agents/templates');
    expect(templates.status).toBe(200);
    expect(templates.body.map((x: { template_type: string }) => x.template_type)).toEqual(['researcher', 'briefing', 'curator', 'monitor', 'custom']);
    expect(templates.body[1].suggested_schedules[0].cron).toBe('0 7 * * 1-5');

    const r = await a.post('/v1/agents', { name: 'Monitor one', template_type: 'monitor' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      org_id: s.org_id,
      name: 'Monitor one',
      template_type: 'monitor',
      model: 'scripted',
      daily_credit_budget: 50,
      max_steps: 25,
      tools: ['strata_retrieve', 'strata_traverse', 'strata_get_node', 'strata_remember', 'ask_user'],
      scope: {},
      paused: false,
      status: 'active',
      budget: { daily_credit_budget: 50, used_today: 0, remaining_today: 50, resets_at: '2030-01-02T00:00:00.000Z' },
      usage: { runs: 0, credits: 0, input_tokens: 0, output_tokens: 0 },
      active_sessions: 0,
      last_run_at: null,
      created_by: s.user_id,
      created_at: '2030-01-01T12:00:00.000Z',
      archived_at: null,
    });
    const node = await a.get(`/node/${r.body.node_uid}`);
    expect(node.status).toBe(200);
    expect(node.body).toMatchObject({ node_type: 'Agent', label: 'Monitor one', props: { agent_type: 'llm', model_id: 'scripted', capabilities: r.body.tools } });

    const got = await a.get(`/v1/agents/${r.body.id}`);
    expect(got.body).toEqual(r.body);
    const list = await a.get('/v1/agents');
    expect(list.body).toMatchObject({ has_more: false, limit: 50, offset: 0 });
    expect(list.body.items.map((x: { id: string }) => x.id)).toEqual([r.body.id]);

    const cases: [unknown, number, string, string?][] = [
      [{}, 400, 'missing_field', 'name'],
      [{ name: 'x'.repeat(101) }, 400, 'invalid_field', 'name'],
      [{ name: 'b', model: 'gpt-9' }, 400, 'invalid_field', 'model'],
      [{ name: 'b', tools: ['strata_retrieve', 'rm_rf'] }, 400, 'invalid_field', 'tools'],
      [{ name: 'b', max_steps: 0 }, 400, 'invalid_field', 'max_steps'],
      [{ name: 'b', daily_credit_budget: 100_001 }, 400, 'invalid_field', 'daily_credit_budget'],
      [{ name: 'b', template_type: 'wizard' }, 400, 'invalid_field', 'template_type'],
      [{ name: 'b', scope: { project_uids: ['nope'] } }, 404, 'not_found', 'scope.project_uids[0]'],
      [{ name: 'MONITOR ONE' }, 409, 'duplicate', 'name'],
    ];
    for (const [body, status, code, field] of cases) {
      const x = await a.post('/v1/agents', body);
      expect([body, x.status, x.body.code, x.body.field]).toEqual([body, status, code, field]);
    }
    expect((await a.get('/v1/agents')).body.items).toHaveLength(1);
    expect((await a.get('/v1/agents/unknown-id')).status).toBe(404);
  });

  it('PATCH changes fields (no change, no event), pauses and resumes; archive is final and revokes bound keys', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const created = (await a.post('/v1/agents', { name: 'Curator', template_type: 'curator', custom_instructions: 'Tidy up.' })).body;
    expect(created.instructions).toBe('Tidy up.');
    clock.advance(60);
    const same = await a.patch(`/v1/agents/${created.id}`, { name: 'Curator' });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(created.updated_at);
    // a blank name or description is refused, not taken as omitted while the rest applies
    for (const [body, code, field] of [
      [{ name: '', max_steps: 7 }, 'missing_field', 'name'],
      [{ name: '  ', max_steps: 7 }, 'missing_field', 'name'],
      [{ description: ' ', max_steps: 7 }, 'invalid_field', 'description'],
    ] as const) {
      const r = await a.patch(`/v1/agents/${created.id}`, body);
      expect([body, r.status, r.body.code, r.body.field]).toEqual([body, 400, code, field]);
    }
    expect((await a.get(`/v1/agents/${created.id}`)).body).toMatchObject({ name: 'Curator', max_steps: 25, updated_at: created.updated_at });
    const changed = await a.patch(`/v1/agents/${created.id}`, { model: 'scripted-large', max_steps: 5 });
    expect(changed.body).toMatchObject({ model: 'scripted-large', max_steps: 5, status: 'active' });
    expect(changed.body.updated_at).not.toBe(created.updated_at);
    const paused = await a.patch(`/v1/agents/${created.id}`, { paused: true });
    expect(paused.body).toMatchObject({ paused: true, status: 'paused' });
    expect((await a.get(`/v1/agents?status=paused`)).body.items.map((x: { id: string }) => x.id)).toEqual([created.id]);
    const resumed = await a.patch(`/v1/agents/${created.id}`, { paused: false });
    expect(resumed.body.status).toBe('active');

    const key = await createApiKey(t.url, s.access_token, { agent_id: created.id });
    const bound = api(t.url, key.key);
    expect((await bound.get(`/v1/agents/${created.id}`)).status).toBe(200);
    const other = (await a.post('/v1/agents', { name: 'Other' })).body;
    expect((await bound.get(`/v1/agents/${other.id}`)).status).toBe(404);
    expect((await bound.patch(`/v1/agents/${created.id}`, { max_steps: 3 })).body.code).toBe('forbidden');

    const archived = await a.post(`/v1/agents/${created.id}/archive`, {});
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({ status: 'archived', archived_at: expect.any(String) });
    expect((await a.post(`/v1/agents/${created.id}/archive`, {})).body).toEqual(archived.body);
    const late = await a.patch(`/v1/agents/${created.id}`, { max_steps: 3 });
    expect([late.status, late.body.code, late.body.from_status]).toEqual([409, 'invalid_transition', 'archived']);
    expect((await bound.get(`/v1/agents/${created.id}`)).status).toBe(401);
    expect((await a.get(`/node/${created.node_uid}`)).body.props.status).toBe('archived');
    expect((await a.get('/v1/agents')).body.items.map((x: { id: string }) => x.id)).toEqual([other.id]);
    expect((await a.get('/v1/agents?include_archived=true')).body.items).toHaveLength(2);
    // the name is free again
    expect((await a.post('/v1/agents', { name: 'Curator' })).status).toBe(201);
  });

  it('/mcp lists and calls only the bound agent’s tools (read ones for a read key); other keys are not narrowed', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const agent = (await a.post('/v1/agents', { name: 'Narrow', tools: ['strata_capture', 'strata_retrieve', 'ask_user'] })).body;
    const rpc = (key: string, body: unknown) => request(t.url, 'POST', '/mcp', { token: key, raw: JSON.stringify(body), headers: { accept: 'application/json, text/event-stream' } });
    const listed = async (key: string) => (await rpc(key, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools.map((x: { name: string }) => x.name).sort();
    const bound = await createApiKey(t.url, s.access_token, { agent_id: agent.id });
    const boundRead = await createApiKey(t.url, s.access_token, { agent_id: agent.id, scopes: ['read'] });
    expect(await listed(bound.key)).toEqual(['strata_capture', 'strata_retrieve']);
    expect(await listed(boundRead.key)).toEqual(['strata_retrieve']);
    const refused = await rpc(bound.key, { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'strata_commit', arguments: { action: 'goal', label: 'Not its tool' } } });
    expect(refused.body.error.code).toBe(-32602);
    expect((await a.get('/nodes?type=Goal')).body.items).toEqual([]);
    const allowed = await rpc(bound.key, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'strata_capture', arguments: { action: 'observation', label: 'Its own tool' } } });
    expect(allowed.body.result.isError).toBeUndefined();
    // an unbound key, and a key bound to an agent Strata does not run, list every tool
    const unbound = await createApiKey(t.url, s.access_token);
    const external = await createApiKey(t.url, s.access_token, { agent_id: 'external-bot' });
    expect(await listed(unbound.key)).toHaveLength(11);
    expect(await listed(external.key)).toHaveLength(11);
  });

  it('a key bound to a managed agent reads the agent once per request, and a PATCH of its tools or scope holds from the next request', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const loose = await mk(a, 'Claim', 'Loose claim');
    const world = await seedBriefWorld(a);
    const agent = (await a.post('/v1/agents', { name: 'Counted', tools: ['strata_capture', 'strata_retrieve', 'strata_get_node'] })).body;
    const key = (await createApiKey(t.url, s.access_token, { agent_id: agent.id })).key;
    const rpc = (body: unknown) => request(t.url, 'POST', '/mcp', { token: key, raw: JSON.stringify(body), headers: { accept: 'application/json, text/event-stream' } });
    const listed = async () => (await rpc({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).body.result.tools.map((x: { name: string }) => x.name).sort();
    const spy = jest.spyOn(AgentsReadModel.prototype, 'agent');
    const reads = async (fn: () => Promise<unknown>) => {
      const before = spy.mock.calls.filter(([org, id]) => org === s.org_id && id === agent.id).length;
      await fn();
      return spy.mock.calls.filter(([org, id]) => org === s.org_id && id === agent.id).length - before;
    };
    try {
      // a tools/call reaches its route in-process, a request of its own: one read each
      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'strata_get_node', arguments: { action: 'get', uid: loose } } };
      let answer: any;
      const counts = [await reads(listed), await reads(() => api(t.url, key).get(`/node/${loose}`)), await reads(async () => (answer = await rpc(call)))];
      expect(answer.text).toContain('Loose claim');
      expect(counts).toEqual([1, 1, 2]);
      expect(await listed()).toEqual(['strata_capture', 'strata_get_node', 'strata_retrieve']);
      expect((await a.patch(`/v1/agents/${agent.id}`, { tools: ['strata_retrieve'], scope: { project_uids: [world.project] } })).status).toBe(200);
      expect(await listed()).toEqual(['strata_retrieve']);
      expect((await api(t.url, key).get(`/node/${loose}`)).status).toBe(404);
      expect((await api(t.url, key).get(`/node/${world.project}`)).status).toBe(200);
    } finally {
      spy.mockRestore();
    }
  });

  it('a key bound to a managed agent acts within the agent’s scope, and within its own lists too, from the request after a scope change', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const world = await seedBriefWorld(a);
    const loose = await mk(a, 'Claim', 'Loose claim');
    const agent = (await a.post('/v1/agents', { name: 'Orion reader', scope: { project_uids: [world.project] } })).body;
    const key = api(t.url, (await createApiKey(t.url, s.access_token, { agent_id: agent.id, scopes: ['read'] })).key);
    // the admitted set of the agent's Project, with the Project; nothing else
    for (const uid of [world.ablates, world.docA, world.project]) expect([uid, (await key.get(`/node/${uid}`)).status]).toEqual([uid, 200]);
    for (const uid of [loose, world.other]) expect([uid, (await key.get(`/node/${uid}`)).status, (await key.get(`/node/${uid}`)).body.code]).toEqual([uid, 404, 'not_found']);
    const claims = (await key.get('/nodes?node_type=Claim&limit=100')).body.items.map((n: { uid: string }) => n.uid);
    expect(claims).toContain(world.ablates);
    expect(claims).not.toContain(loose);
    const wide = await key.get('/stats');
    expect([wide.status, wide.body.code]).toEqual([403, 'scope_denied']);
    // the key's own list narrows the agent's scope, never widens it
    const elsewhere = api(t.url, (await createApiKey(t.url, s.access_token, { agent_id: agent.id, scopes: ['read'], project_uids: [world.other] })).key);
    expect((await elsewhere.get(`/node/${world.ablates}`)).status).toBe(404);
    expect((await elsewhere.get(`/node/${world.other}`)).status).toBe(404);
    // the agent's scope lifted: the same key reads the whole graph at once
    expect((await a.patch(`/v1/agents/${agent.id}`, { scope: {} })).status).toBe(200);
    expect((await key.get(`/node/${loose}`)).status).toBe(200);
    expect((await key.get('/stats')).status).toBe(200);
  });

  it('roles and keys: members and read keys read; only owners, admins and unbound write keys manage', async () => {
    const s = await proOrg();
    const read = await createApiKey(t.url, s.access_token, { scopes: ['read'] });
    const write = await createApiKey(t.url, s.access_token, { scopes: ['read', 'write'] });
    const r1 = await api(t.url, read.key).post('/v1/agents', { name: 'x' });
    expect([r1.status, r1.body.code]).toEqual([403, 'read_only_credential']);
    expect((await api(t.url, read.key).get('/v1/agents')).status).toBe(200);
    expect((await api(t.url, write.key).post('/v1/agents', { name: 'by key' })).status).toBe(201);
  });

  it('a create or PATCH is checked body first, then existence, then state, then the plan limit', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const base = (await a.post('/v1/agents', { name: 'Base' })).body;
    // body (400) before a missing Project (404)
    const r1 = await a.post('/v1/agents', { name: 'x', tools: ['rm_rf'], scope: { project_uids: ['nope'] } });
    expect([r1.status, r1.body.code, r1.body.field]).toEqual([400, 'invalid_field', 'tools']);
    // a missing Project (404) before a taken name (409)
    const r2 = await a.post('/v1/agents', { name: 'Base', scope: { project_uids: ['nope'] } });
    expect([r2.status, r2.body.code]).toEqual([404, 'not_found']);
    for (let i = 1; i < 5; i++) expect((await a.post('/v1/agents', { name: `agent ${i}` })).status).toBe(201);
    // at the plan's limit: the body (400) and a taken name (409) still come first
    const cases: [unknown, number, string][] = [
      [{ name: 'over', tools: ['rm_rf'] }, 400, 'invalid_field'],
      [{ name: 'over', model: 'gpt-9' }, 400, 'invalid_field'],
      [{ name: 'BASE' }, 409, 'duplicate'],
      [{ name: 'over' }, 403, 'plan_limit_reached'],
    ];
    for (const [body, status, code] of cases) {
      const x = await a.post('/v1/agents', body);
      expect([body, x.status, x.body.code]).toEqual([body, status, code]);
    }
    // PATCH: the body (400) before an unknown agent (404) and an archived one (409)
    const p1 = await a.patch('/v1/agents/no-such-agent', { tools: ['rm_rf'] });
    expect([p1.status, p1.body.code, p1.body.field]).toEqual([400, 'invalid_field', 'tools']);
    expect((await a.post(`/v1/agents/${base.id}/archive`, {})).status).toBe(200);
    const p2 = await a.patch(`/v1/agents/${base.id}`, { model: 'gpt-9' });
    expect([p2.status, p2.body.code, p2.body.field]).toEqual([400, 'invalid_field', 'model']);
    const p3 = await a.patch(`/v1/agents/${base.id}`, { max_steps: 3 });
    expect([p3.status, p3.body.code]).toEqual([409, 'invalid_transition']);
    expect((await a.get('/v1/agents')).body.items).toHaveLength(4);
  });

  it('scope.space_uids names live Spaces of the organization: unknown, tombstoned or foreign 404, another type 400; nothing is written', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const space = (await a.post('/node', { label: 'Legal', node_type: 'Space' })).body.uid;
    const gone = (await a.post('/node', { label: 'Old', node_type: 'Space' })).body.uid;
    expect((await a.delete(`/node/${gone}`)).status).toBe(200);
    const claim = await mk(a, 'Claim', 'Not a Space');
    const theirs = await proOrg();
    const foreign = (await api(t.url, theirs.access_token).post('/node', { label: 'Theirs', node_type: 'Space' })).body.uid;
    const agent = (await a.post('/v1/agents', { name: 'Scoped', scope: { space_uids: [space] } })).body;
    expect(agent.scope).toEqual({ space_uids: [space] });
    const cases: [unknown, number, string, string][] = [
      [['no-such-space'], 404, 'not_found', 'scope.space_uids[0]'],
      [[space, gone], 404, 'not_found', 'scope.space_uids[1]'],
      [[foreign], 404, 'not_found', 'scope.space_uids[0]'],
      [[claim], 400, 'wrong_node_type', 'scope.space_uids[0]'],
    ];
    for (const [space_uids, status, code, field] of cases) {
      const c = await a.post('/v1/agents', { name: 'Refused', scope: { space_uids } });
      expect([space_uids, c.status, c.body.code, c.body.field]).toEqual([space_uids, status, code, field]);
      const p = await a.patch(`/v1/agents/${agent.id}`, { scope: { space_uids } });
      expect([space_uids, p.status, p.body.code, p.body.field]).toEqual([space_uids, status, code, field]);
    }
    expect((await a.get('/v1/agents')).body.items.map((x: { name: string }) => x.name)).toEqual(['Scoped']);
    expect((await a.get(`/v1/agents/${agent.id}`)).body.scope).toEqual({ space_uids: [space] });
  });

  it('resolve-decision refuses a body without a decision id (400) before looking for the agent (404)', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const r1 = await a.post('/v1/agents/no-such-agent/resolve-decision', { decision: 'allow' });
    expect([r1.status, r1.body.code, r1.body.field]).toEqual([400, 'missing_field', 'decision_id']);
    const r2 = await a.post('/v1/agents/no-such-agent/resolve-decision', { decision_id: 'd1', decision: 'allow' });
    expect([r2.status, r2.body.code]).toEqual([404, 'not_found']);
  });

  it('agents, sessions and schedules made at the same instant are listed newest first, ties by id ascending', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const asc = (ids: string[]) => [...ids].sort();
    const agents: string[] = [];
    for (const name of ['Tie one', 'Tie two', 'Tie three']) agents.push((await a.post('/v1/agents', { name })).body.id);
    expect((await a.get('/v1/agents')).body.items.map((x: { id: string }) => x.id)).toEqual(asc(agents));
    const sessions: string[] = [];
    for (let i = 0; i < 3; i++) sessions.push((await a.post('/v1/agents/sessions', { agent_id: agents[0] })).body.id);
    expect((await a.get('/v1/agents/sessions')).body.items.map((x: { id: string }) => x.id)).toEqual(asc(sessions));
    const schedules: string[] = [];
    for (let i = 0; i < 3; i++) schedules.push((await a.post('/v1/agents/schedules', { agent_id: agents[0], name: `s${i}`, cron: '@daily', message_template: 'go' })).body.id);
    expect((await a.get('/v1/agents/schedules')).body.items.map((x: { id: string }) => x.id)).toEqual(asc(schedules));
    // a later one comes first
    clock.advance(1);
    const later = (await a.post('/v1/agents', { name: 'Tie later' })).body.id;
    expect((await a.get('/v1/agents')).body.items.map((x: { id: string }) => x.id)).toEqual([later, ...asc(agents)]);
  });

  it('the plan caps the non-archived agents (403 plan_limit_reached)', async () => {
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    for (let i = 0; i < 5; i++) expect((await a.post('/v1/agents', { name: `agent ${i}` })).status).toBe(201);
    const over = await a.post('/v1/agents', { name: 'sixth' });
    expect([over.status, over.body.code, over.body.limit, over.body.max, over.body.current]).toEqual([403, 'plan_limit_reached', 'agents', 5, 5]);
  });

  it('a message is checked as every agent route: the caller, then the plan, then the body (the route runs on the fast lane)', async () => {
    const free = await signUp(t.url);
    const r0 = await api(t.url, free.access_token).post('/v1/agents/sessions/x/message', {});
    expect([r0.status, r0.body.code]).toEqual([403, 'plan_required']);
    const s = await proOrg();
    const a = api(t.url, s.access_token);
    const agent = (await a.post('/v1/agents', { name: 'Messenger' })).body;
    const session = (await a.post('/v1/agents/sessions', { agent_id: agent.id })).body;
    const read = await createApiKey(t.url, s.access_token, { scopes: ['read'] });
    const r1 = await api(t.url, read.key).post(`/v1/agents/sessions/${session.id}/message`, {});
    expect([r1.status, r1.body.code]).toEqual([403, 'read_only_credential']);
    const r2 = await a.post(`/v1/agents/sessions/${session.id}/message`, {});
    expect([r2.status, r2.body.code, r2.body.field]).toEqual([400, 'missing_field', 'content']);
    const r3 = await a.post(`/v1/agents/sessions/${session.id}/message`, { content: 'hi', wait_timeout_s: 0 });
    expect([r3.status, r3.body.field]).toEqual([400, 'wait_timeout_s']);
    expect((await a.post('/v1/agents/sessions/no-such-session/message', { content: 'hi' })).status).toBe(404);
    llm.enqueue({ type: 'text', text: 'hello back' });
    const ok = await a.post(`/v1/agents/sessions/${session.id}/message`, { content: 'hi', wait: true });
    expect([ok.status, ok.body.output, ok.body.run.status]).toEqual([200, 'hello back', 'completed']);
  });
});
