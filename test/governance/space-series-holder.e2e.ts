import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { api, signUp } from '../support/http';
import { RetrievalFixture, mk, startRetrieval } from '../retrieval/retrieval-fixture';

/**
 * REFERENCE §13.1: a Series in a Space a member has no grant on is absent for it. The one live
 * Series per (entity, metric) still refuses the member's second one, but without the hidden
 * Series' uid.
 */
describe('a member refused a Series whose key a hidden Series holds is not told its uid', () => {
  let f: RetrievalFixture;
  beforeAll(async () => {
    f = await startRetrieval({ clock: new FixedClock(at('2030-01-01T12:00:00Z')) });
  }, 60_000);
  afterAll(() => f.close());

  it('409 duplicate without existing_uid, and nothing written', async () => {
    const o = api(f.app.url, f.jwt);
    const board = (await o.post('/node', { node_type: 'Space', label: 'Board' })).body.uid;
    const person = await mk(f.w, 'Person', 'Ada');
    const held = await f.w.post('/reality/series', { action: 'create', label: 'Revenue', entity_uid: person, space_uid: board, props: { metric: 'revenue' } });
    expect(held.status).toBe(201);
    const hidden = held.body.uid as string;
    const m = await signUp(f.app.url);
    expect((await o.post(`/v1/orgs/${f.orgId}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    const member = api(f.app.url, m.access_token, { org: f.orgId });
    expect((await member.get(`/node/${hidden}`)).status).toBe(404);
    expect((await member.get(`/node/${person}`)).status).toBe(200);

    const attempts = [
      await member.post('/reality/series', { action: 'create', label: 'Mine', entity_uid: person, props: { metric: 'revenue' } }),
      await member.post('/node', { node_type: 'Series', label: 'Mine too', props: { entity_uid: person, metric: 'revenue' } }),
    ];
    for (const r of attempts) {
      expect([r.status, r.body.code]).toEqual([409, 'duplicate']);
      expect(r.body).not.toHaveProperty('existing_uid');
      expect(r.text).not.toContain(hidden);
    }
    const listed = await f.w.post('/reality/series', { action: 'list_for_entity', entity_uid: person });
    expect(listed.body.items.map((s: { uid: string }) => s.uid)).toEqual([hidden]);
    // the owner's key is told which Series holds the key
    expect((await f.w.post('/reality/series', { action: 'create', label: 'Org', entity_uid: person, props: { metric: 'revenue' } })).body).toMatchObject({ code: 'duplicate', existing_uid: hidden });
  });
});
