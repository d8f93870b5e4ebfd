import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * REFERENCE §13.3: a managed agent is a known agent, whether or not a key was ever bound to it
 * (Space grants §13.2, Project grants §12.8);
 * §16.13: a key binds only to a managed agent that is not archived.
 */
describe('managed agents as grant principals and key bindings', () => {
  let t: TestApp;
  let llm: ScriptedOpenAIChatServer;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    llm = await ScriptedOpenAIChatServer.start({ apiKey: 'test' });
    t = await startTestApp({ clock, env: { STRATA_LLM_PROVIDER: 'openai', STRATA_LLM_URL: llm.baseUrl, STRATA_LLM_KEY: 'test', STRATA_LLM_MODEL: 'scripted' } });
  });
  afterAll(async () => {
    await t.close();
    await llm.close();
  });

  async function world() {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    expect((await o.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = await o.post('/v1/agents', { name: 'Helper' });
    expect(agent.status).toBe(201);
    return { o, agentId: agent.body.id as string };
  }

  it('a Space grant to a managed agent no key is bound to is set (201) and widens what the agent reaches', async () => {
    const { o, agentId } = await world();
    const s = (await o.post('/node', { label: 'Tools', node_type: 'Space' })).body.uid;
    const tool = (await o.post('/node', { label: 'Spaced tool', node_type: 'Affordance', space_uid: s, props: { action_name: 'y', description: 'y' } })).body.uid;
    const listed = async () => (await o.get(`/v1/agents/${agentId}/tool-grants`)).body.items.map((i: { affordance_uid: string }) => i.affordance_uid);
    expect(await listed()).not.toContain(tool);
    const g = await o.post(`/v1/spaces/${s}/grants`, { principal_uid: `agent:${agentId}`, access: 'read' });
    expect([g.status, g.body.principal_uid, g.body.access]).toEqual([201, `agent:${agentId}`, 'read']);
    expect((await o.get(`/v1/spaces/${s}/grants`)).body.items.map((i: { principal_uid: string }) => i.principal_uid)).toEqual([`agent:${agentId}`]);
    expect(await listed()).toEqual([tool]);
    // an agent that is neither managed nor bound to a key is still unknown
    expect((await o.post(`/v1/spaces/${s}/grants`, { principal_uid: 'agent:nobody', access: 'read' })).status).toBe(404);
  });

  it('a Project grant to a managed agent no key is bound to is set (201) and listed', async () => {
    const { o, agentId } = await world();
    const p = (await o.post('/node', { label: 'Launch', node_type: 'Project' })).body.uid;
    const g = await o.post(`/v1/projects/${p}/grants`, { principal_uid: `agent:${agentId}`, role: 'viewer' });
    expect([g.status, g.body.principal_uid, g.body.role]).toEqual([201, `agent:${agentId}`, 'viewer']);
    expect((await o.get(`/v1/projects/${p}/grants`)).body.items.map((i: { principal_uid: string }) => i.principal_uid)).toEqual([`agent:${agentId}`]);
    expect((await o.post(`/v1/projects/${p}/grants`, { principal_uid: 'agent:nobody', role: 'viewer' })).status).toBe(404);
  });

  it('a key cannot be bound to an archived managed agent (400 invalid_field), and no key is created', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    expect((await o.post('/v1/billing/subscribe', { plan: 'pro' })).status).toBe(200);
    const agent = (await o.post('/v1/agents', { name: 'Retired' })).body;
    const before = await createApiKey(t.url, owner.access_token, { agent_id: agent.id, name: 'before' });
    expect((await o.post(`/v1/agents/${agent.id}/archive`, {})).status).toBe(200);
    const r = await o.post('/v1/api-keys', { name: 'after', scopes: ['read', 'write'], agent_id: agent.id });
    expect([r.status, r.body.code, r.body.field, r.body.key]).toEqual([400, 'invalid_field', 'agent_id', undefined]);
    expect((await o.get('/v1/api-keys')).body.items.map((k: { id: string }) => k.id)).toEqual([before.id]);
    // a live managed agent still binds
    const live = (await o.post('/v1/agents', { name: 'Active' })).body;
    expect((await o.post('/v1/api-keys', { name: 'live', scopes: ['read'], agent_id: live.id })).status).toBe(201);
  });
});
