import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';

/**
 * REFERENCE §13.1 with §1.8: tombstoning a spaced node cascades to its InSpace edge, yet the
 * node is still served (GET /node, history, include_tombstoned lists). It stays in its Space
 * for those reads, so a caller without a grant keeps getting 404 and never sees its label.
 */
describe('a tombstoned spaced node stays hidden from callers outside its Space', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('answers 404 to a member without a grant, and serves it to one with a grant', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Vault', node_type: 'Space' })).body.uid;
    const anchor = (await o.post('/node', { label: 'Open note', node_type: 'Note' })).body.uid;
    const secret = (await o.post('/node', { label: 'Zqsecret settlement', node_type: 'Note', space_uid: space })).body.uid;
    const edge = (await o.post('/edge', { from_uid: anchor, to_uid: secret, edge_type: 'RelatedTo' })).body.uid;
    const join = async () => {
      const u = await signUp(t.url);
      expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: u.email, role: 'member' })).status).toBe(201);
      return u;
    };
    const bare = await join();
    const granted = await join();
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${granted.user_id}`, access: 'read' })).status).toBe(201);
    const b = api(t.url, bare.access_token, { org: owner.org_id });
    const g = api(t.url, granted.access_token, { org: owner.org_id });

    expect((await o.delete(`/node/${secret}`)).status).toBe(200);

    expect((await b.get(`/node/${secret}`)).status).toBe(404);
    expect((await b.get(`/node/${secret}/history`)).status).toBe(404);
    const listed = await b.get('/nodes?include_tombstoned=true&limit=1000');
    expect(listed.text).not.toContain('Zqsecret');
    const edges = await b.get(`/edges?from_uid=${anchor}&include_tombstoned=true`);
    expect(edges.body.map((e: any) => e.uid)).not.toContain(edge);
    const stats = (await b.get('/stats')).body;
    expect(stats.tombstoned_nodes).toBe(0);

    const seen = await g.get(`/node/${secret}`);
    expect([seen.status, seen.body.label, seen.body.tombstone_at]).toEqual([200, 'Zqsecret settlement', clock.now()]);
    expect((await g.get(`/edges?from_uid=${anchor}&include_tombstoned=true`)).body.map((e: any) => e.uid)).toContain(edge);
  });
});
