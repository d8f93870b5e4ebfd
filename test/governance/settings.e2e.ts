import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

describe('governance settings (REFERENCE §13.5)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('defaults, PATCH of any subset by owner/admin, reads by any user, refusals change nothing', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const d = await o.get('/v1/governance/settings');
    expect(d.status).toBe(200);
    expect(d.body).toEqual({
      mode: 'enforce',
      agent_scope_without_grants: 'organization',
      approval_deadline_hours: 72,
      approval_ttl_hours: 24,
      policy_counts: { draft: 0, shadow: 0, published: 0, rejected: 0 },
      sync: { status: 'never', last_synced_at: null, last_synced_by: null, pending_policies: 0, drifted_nodes: 0 },
      updated_at: null,
      updated_by: null,
    });
    const p = await o.patch('/v1/governance/settings', { mode: 'shadow', approval_ttl_hours: 48 });
    expect(p.status).toBe(200);
    expect(p.body).toMatchObject({ mode: 'shadow', approval_ttl_hours: 48, approval_deadline_hours: 72, updated_by: owner.user_id, updated_at: new Date(clock.now() * 1000).toISOString() });

    for (const [body, field] of [
      [{ mode: 'strict' }, 'mode'],
      [{ agent_scope_without_grants: 'project' }, 'agent_scope_without_grants'],
      [{ approval_deadline_hours: 0 }, 'approval_deadline_hours'],
      [{ approval_deadline_hours: 721 }, 'approval_deadline_hours'],
      [{ approval_ttl_hours: 169 }, 'approval_ttl_hours'],
      [{ approval_ttl_hours: 2.5 }, 'approval_ttl_hours'],
      [{ mode: 'off', approval_ttl_hours: 0 }, 'approval_ttl_hours'],
    ] as const) {
      const r = await o.patch('/v1/governance/settings', body);
      expect([JSON.stringify(body), r.status, r.body.code, r.body.field]).toEqual([JSON.stringify(body), 400, 'invalid_field', field]);
    }
    expect((await o.get('/v1/governance/settings')).body).toMatchObject({ mode: 'shadow', approval_ttl_hours: 48 });

    const m = await signUp(t.url);
    await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'viewer' });
    const viewer = api(t.url, m.access_token, { org: owner.org_id });
    expect((await viewer.get('/v1/governance/settings')).body.mode).toBe('shadow');
    expect((await viewer.patch('/v1/governance/settings', { mode: 'off' })).body.code).toBe('insufficient_role');
    const key = await createApiKey(t.url, owner.access_token);
    expect((await api(t.url, key.key).get('/v1/governance/settings')).body.code).toBe('api_key_not_allowed');
    expect((await api(t.url, key.key).patch('/v1/governance/settings', { mode: 'off' })).body.code).toBe('api_key_not_allowed');
  });

  it('agent_scope_without_grants: none leaves an agent without grants nothing to see', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const n = (await o.post('/node', { label: 'open', node_type: 'Concept' })).body.uid;
    const agent = api(t.url, (await createApiKey(t.url, owner.access_token, { agent_id: 'lonely' })).key);
    expect((await agent.get(`/node/${n}`)).status).toBe(200);
    await o.patch('/v1/governance/settings', { agent_scope_without_grants: 'none' });
    expect((await agent.get(`/node/${n}`)).status).toBe(404);
    expect((await agent.get('/nodes')).body.items).toEqual([]);
    // a plain key is not an agent
    const plain = api(t.url, (await createApiKey(t.url, owner.access_token)).key);
    expect((await plain.get(`/node/${n}`)).status).toBe(200);
    await o.patch('/v1/governance/settings', { agent_scope_without_grants: 'organization' });
    expect((await agent.get(`/node/${n}`)).status).toBe(200);
  });
});
