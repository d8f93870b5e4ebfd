import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

const ISO_AT = (unix: number) => new Date(unix * 1000).toISOString();

describe('agent tool grants (REFERENCE §13.4)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  async function world() {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const agentKey = await createApiKey(t.url, owner.access_token, { agent_id: 'runner', name: 'runner key' });
    const agent = api(t.url, agentKey.key);
    const tool = (await o.post('/node', { label: 'Deploy', node_type: 'Affordance', props: { action_name: 'deploy', description: 'ship it', risk_level: 'high' } })).body.uid;
    const other = (await o.post('/node', { label: 'Archive', node_type: 'Affordance', props: { action_name: 'archive', description: 'file it' } })).body.uid;
    return { owner, o, agent, tool, other };
  }

  it('grants, lists by label, updates (200), revokes and answers 404 when there is nothing to revoke', async () => {
    const { o, tool, other } = await world();
    const url = `/v1/agents/runner/tool-grants`;
    const put = await o.put(`${url}/${tool}`, { expires_at: ISO_AT(clock.now() + 3600), note: 'release train' });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ agent_id: 'runner', affordance_uid: tool, granted: true, expires_at: ISO_AT(clock.now() + 3600), note: 'release train' });
    expect((await o.put(`${url}/${tool}`, { note: 'no end' })).status).toBe(200);
    const list = await o.get(url);
    expect(list.body).toMatchObject({ agent_id: 'runner', has_more: false, limit: 100, offset: 0 });
    expect(list.body.items.map((i: any) => [i.label, i.granted, i.expires_at, i.note])).toEqual([
      ['Archive', false, null, null],
      ['Deploy', true, null, 'no end'],
    ]);
    expect(list.body.items[1]).toMatchObject({ action_name: 'deploy', risk_level: 'high' });
    expect((await o.get(`${url}?granted=true`)).body.items.map((i: any) => i.affordance_uid)).toEqual([tool]);
    expect((await o.get(`${url}?granted=false`)).body.items.map((i: any) => i.affordance_uid)).toEqual([other]);
    const del = await o.delete(`${url}/${tool}`);
    expect([del.status, del.body]).toEqual([200, { agent_id: 'runner', affordance_uid: tool, revoked: true }]);
    expect((await o.delete(`${url}/${tool}`)).status).toBe(404);
  });

  it('refuses unknown agents, unknown or tombstoned tools, other node types, past expiries and non-owners', async () => {
    const { o, owner, tool } = await world();
    const unknownAgent = await o.get('/v1/agents/ghost/tool-grants');
    expect([unknownAgent.status, unknownAgent.body.field]).toEqual([404, 'id']);
    expect((await o.put('/v1/agents/runner/tool-grants/00000000-0000-4000-8000-000000000000', {})).status).toBe(404);
    const concept = (await o.post('/node', { label: 'c', node_type: 'Concept' })).body.uid;
    expect((await o.put(`/v1/agents/runner/tool-grants/${concept}`, {})).body.code).toBe('wrong_node_type');
    const gone = (await o.post('/node', { label: 'Gone', node_type: 'Affordance', props: { action_name: 'x', description: 'x' } })).body.uid;
    await o.delete(`/node/${gone}`);
    expect((await o.put(`/v1/agents/runner/tool-grants/${gone}`, {})).status).toBe(404);
    const past = await o.put(`/v1/agents/runner/tool-grants/${tool}`, { expires_at: ISO_AT(clock.now() - 1) });
    expect([past.status, past.body.code, past.body.field]).toEqual([400, 'invalid_field', 'expires_at']);
    expect((await o.put(`/v1/agents/runner/tool-grants/${tool}`, { note: 'x'.repeat(501) })).body.code).toBe('invalid_field');
    // owner/admin JWT writes; any user JWT reads; API keys never
    const m = await signUp(t.url);
    await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' });
    const member = api(t.url, m.access_token, { org: owner.org_id });
    expect((await member.put(`/v1/agents/runner/tool-grants/${tool}`, {})).body.code).toBe('insufficient_role');
    expect((await member.get('/v1/agents/runner/tool-grants')).status).toBe(200);
    const key = await createApiKey(t.url, owner.access_token);
    expect((await api(t.url, key.key).get('/v1/agents/runner/tool-grants')).body.code).toBe('api_key_not_allowed');
    expect((await o.get('/v1/agents/runner/tool-grants?granted=true')).body.items).toEqual([]);
  });

  it('an agent-bound key starts an execution of a tool only with an unexpired grant; users are not subject to grants', async () => {
    const { o, agent, tool } = await world();
    const start = () => agent.post('/agent/execution', { action: 'start', label: 'run deploy', props: { description: 'deploy', affordance_uid: tool } });
    const refused = await start();
    expect([refused.status, refused.body.code, refused.body.affordance_uid]).toEqual([403, 'tool_not_granted', tool]);
    expect((await o.get('/nodes?node_type=Execution')).body.items).toEqual([]);
    // top-level affordance_uid counts too
    expect((await agent.post('/agent/execution', { action: 'start', label: 'x', affordance_uid: tool, props: { description: 'x' } })).body.code).toBe('tool_not_granted');
    // the owner's JWT is not an agent
    expect((await o.post('/agent/execution', { action: 'start', label: 'by hand', props: { description: 'deploy', affordance_uid: tool } })).status).toBe(201);

    await o.put(`/v1/agents/runner/tool-grants/${tool}`, { expires_at: ISO_AT(clock.now() + 60) });
    expect((await start()).status).toBe(201);
    clock.advance(61);
    expect((await start()).body.code).toBe('tool_not_granted');
    await o.put(`/v1/agents/runner/tool-grants/${tool}`, {});
    expect((await start()).status).toBe(201);
    // a grant on a tombstoned tool is dormant until the tool is restored
    await o.delete(`/node/${tool}`);
    await o.post('/evolve', { action: 'restore', uid: tool });
    expect((await start()).status).toBe(201);
    await o.delete(`/v1/agents/runner/tool-grants/${tool}`);
    expect((await start()).body.code).toBe('tool_not_granted');
  });

  it('an agent cannot start an execution of a tombstoned or unknown tool: no live grant, 403 tool_not_granted, no Execution', async () => {
    const { o, agent, tool } = await world();
    await o.put(`/v1/agents/runner/tool-grants/${tool}`, {});
    const start = (affordance: string) => agent.post('/agent/execution', { action: 'start', label: 'run', props: { description: 'run', affordance_uid: affordance } });
    await o.delete(`/node/${tool}`);
    const dormant = await start(tool);
    expect([dormant.status, dormant.body.code, dormant.body.affordance_uid]).toEqual([403, 'tool_not_granted', tool]);
    const unknown = await agent.post('/agent/execution', { action: 'start', label: 'run', affordance_uid: 'no-such-tool', props: { description: 'run' } });
    expect([unknown.status, unknown.body.code, unknown.body.affordance_uid]).toEqual([403, 'tool_not_granted', 'no-such-tool']);
    expect((await o.get('/nodes?node_type=Execution')).body.items).toEqual([]);
    // restored, the grant acts again
    await o.post('/evolve', { action: 'restore', uid: tool });
    expect((await start(tool)).status).toBe(201);
  });

  it('a refused tool leaves only its decision record: a policy_decision a tool grant enforced, in every mode', async () => {
    const { o, agent, tool } = await world();
    const keys = (await o.get('/v1/api-keys')).body.items;
    const keyId = keys.find((k: any) => k.agent_id === 'runner').id;
    const start = () => agent.post('/agent/execution', { action: 'start', label: 'run deploy', props: { description: 'deploy', affordance_uid: tool } });
    expect((await start()).body.code).toBe('tool_not_granted');
    const decisions = async () => (await o.get('/v1/governance/audit?kind=policy_decision')).body.items;
    const [d] = await decisions();
    expect(d).toMatchObject({
      kind: 'policy_decision',
      event_type: 'PolicyDecisionRecorded',
      principal: { kind: 'api_key', id: keyId },
      credential_id: keyId,
      agent_id: 'runner',
      method: 'POST',
      route: '/agent/execution',
      tool_uid: tool,
      target_uids: [],
      decision: { effect: 'deny', enforced: true, policy_uids: [], shadow: [] },
    });
    expect((await o.get('/nodes?node_type=Execution')).body.items).toEqual([]);
    // tool grants apply whatever the policy mode, and so does their record
    await o.patch('/v1/governance/settings', { mode: 'off' });
    expect((await start()).body.code).toBe('tool_not_granted');
    expect(await decisions()).toHaveLength(2);
    // a granted start records no decision
    await o.put(`/v1/agents/runner/tool-grants/${tool}`, {});
    expect((await start()).status).toBe(201);
    expect(await decisions()).toHaveLength(2);
  });

  it('lists only the tools in the agent’s scope: a Space grant limits it', async () => {
    const { o, tool } = await world();
    const s = (await o.post('/node', { label: 'Tools', node_type: 'Space' })).body.uid;
    const spaced = (await o.post('/node', { label: 'Spaced tool', node_type: 'Affordance', space_uid: s, props: { action_name: 'y', description: 'y' } })).body.uid;
    const listed = async () => (await o.get('/v1/agents/runner/tool-grants')).body.items.map((i: any) => i.affordance_uid);
    expect(await listed()).not.toContain(spaced);
    expect((await o.put(`/v1/agents/runner/tool-grants/${spaced}`, {})).status).toBe(404);
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: 'agent:runner', access: 'read' });
    expect(await listed()).toEqual([spaced]);
    expect(await listed()).not.toContain(tool);
  });

  it('a member lists only the agent’s tools it may read itself: a spaced tool it has no grant for is absent', async () => {
    const { owner, o } = await world();
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBeLessThan(300);
    const member = api(t.url, m.access_token, { org: owner.org_id });
    const s = (await o.post('/node', { label: 'Mergers', node_type: 'Space', props: { default_classification: 'restricted' } })).body.uid;
    const spaced = (await o.post('/node', { label: 'Acme merger desk', node_type: 'Affordance', space_uid: s, props: { action_name: 'merge_acme', description: 'z' } })).body.uid;
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: 'agent:runner', access: 'read' });
    await o.put(`/v1/agents/runner/tool-grants/${spaced}`, {});
    const uids = async (c: typeof o, q = '') => (await c.get(`/v1/agents/runner/tool-grants${q}`)).body.items.map((i: any) => i.affordance_uid);
    expect(await uids(o)).toContain(spaced);
    expect((await member.get(`/node/${spaced}`)).status).toBe(404);
    expect(await uids(member)).not.toContain(spaced);
    expect(await uids(member, '?granted=true')).toEqual([]);
    // a grant on the Space lets the member see it there too
    await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `user:${m.user_id}`, access: 'read' });
    expect(await uids(member, '?granted=true')).toEqual([spaced]);
  });
});
