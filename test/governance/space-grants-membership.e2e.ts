import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §13.2: a user's Space grant is held by an org member, so removal revokes it. */
describe('a Space grant does not outlive the membership', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('removal revokes the grant; a viewer invited back cannot write in the Space', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Lab', node_type: 'Space' })).body.uid;
    const v = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: v.email, role: 'viewer' })).status).toBe(201);
    const principal = `user:${v.user_id}`;
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: principal, access: 'write' })).status).toBe(201);
    const viewer = api(t.url, v.access_token, { org: owner.org_id });
    expect((await viewer.post('/node', { label: 'inside', node_type: 'Concept', space_uid: space })).status).toBe(201);

    expect((await o.delete(`/v1/orgs/${owner.org_id}/members/${v.user_id}`)).status).toBe(200);
    expect((await o.get(`/v1/spaces/${space}/grants`)).body.items).toEqual([]);
    const audit = (await o.get(`/v1/governance/audit?kind=governance_change&target_uid=${encodeURIComponent(space)}`)).body.items.map((r: { event_type: string }) => r.event_type);
    expect(audit).toEqual(['SpaceGrantRevoked', 'SpaceGrantSet']);

    // back as a viewer: the old write grant does not come back with them
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: v.email, role: 'viewer' })).status).toBe(201);
    expect((await o.get(`/v1/spaces/${space}/grants`)).body.items).toEqual([]);
    const denied = await viewer.post('/node', { label: 'after', node_type: 'Concept', space_uid: space });
    expect([denied.status, denied.body.code]).toEqual([403, 'read_only_credential']);
  });
});
