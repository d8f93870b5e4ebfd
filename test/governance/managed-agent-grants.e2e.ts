import { FixedClock } from '@strata/domain/time';
import { ScriptedOpenAIChatServer } from '@strata/ai/testing/scripted-openai-chat-server';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §13.3: a managed agent is a known agent, whether or not a key was ever bound to it. */
describe('grants to a managed agent', () => {
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
});
