import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §12.8: removing a member revokes their Project grants, in the log (reason `member_removed`). */
describe('a Project grant does not outlive the membership', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('removal appends ProjectGrantRevoked for each grant; coming back gives no grant back', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const p1 = (await o.post('/node', { label: 'Orion', node_type: 'Project' })).body.uid;
    const p2 = (await o.post('/node', { label: 'Vega', node_type: 'Project' })).body.uid;
    const v = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: v.email, role: 'viewer' })).status).toBe(201);
    const principal = `user:${v.user_id}`;
    expect((await o.post(`/v1/projects/${p1}/grants`, { principal_uid: principal, role: 'editor' })).status).toBe(201);
    expect((await o.post(`/v1/projects/${p2}/grants`, { principal_uid: principal, role: 'viewer' })).status).toBe(201);
    const viewer = api(t.url, v.access_token, { org: owner.org_id });
    expect((await viewer.post(`/projects/${p1}/brief/regenerate`, {})).status).toBe(201); // editor by grant

    expect((await o.delete(`/v1/orgs/${owner.org_id}/members/${v.user_id}`)).status).toBe(200);
    const revoked = (await o.get(`/v1/governance/audit?kind=governance_change&target_uid=${encodeURIComponent(p1)}`)).body.items.filter(
      (r: { event_type: string }) => r.event_type === 'ProjectGrantRevoked',
    );
    expect(revoked).toHaveLength(1);
    expect(revoked[0]).toMatchObject({ subject_uid: p1, principal: { id: owner.user_id } });
    const onP2 = (await o.get(`/v1/governance/audit?kind=governance_change&target_uid=${encodeURIComponent(p2)}`)).body.items.map((r: { event_type: string }) => r.event_type);
    expect(onP2).toEqual(['ProjectGrantRevoked', 'ProjectGrantSet']);
    expect((await o.get(`/v1/projects/${p1}/grants`)).body.items).toEqual([]);

    // back as a viewer: the old editor grant does not come back with them
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: v.email, role: 'viewer' })).status).toBe(201);
    expect((await o.get(`/v1/projects/${p1}/grants`)).body.items).toEqual([]);
    const denied = await viewer.post(`/projects/${p1}/brief/regenerate`, { force: true });
    expect([denied.status, denied.body.code]).toEqual([403, 'forbidden']);
    // removing a member without grants appends no revocation
    const w = await signUp(t.url);
    await o.post(`/v1/orgs/${owner.org_id}/members`, { email: w.email, role: 'member' });
    expect((await o.delete(`/v1/orgs/${owner.org_id}/members/${w.user_id}`)).status).toBe(200);
    expect((await o.get('/v1/governance/audit?kind=governance_change&limit=500')).body.items.filter((r: { event_type: string }) => r.event_type === 'ProjectGrantRevoked')).toHaveLength(2);
  });
});
