import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §7 and §8.7 with §13.1: a graph-wide write would reach nodes the caller cannot read. */
describe('graph-wide writes under the Space rule', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('a member the Space rule hides nodes from is refused POST /decay and /evolve decay without uid alike, and nothing decays', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Legal', node_type: 'Space', props: { default_classification: 'confidential' } })).body.uid;
    const secret = (await o.post('/node', { label: 'Settlement terms', node_type: 'Claim', props: { content: 's' }, space_uid: space })).body.uid;
    const open = (await o.post('/node', { label: 'Public claim', node_type: 'Claim', props: { content: 'p' } })).body.uid;
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    const member = api(t.url, m.access_token, { org: owner.org_id });
    expect((await member.get(`/node/${secret}`)).status).toBe(404);

    // old enough to decay, within the tokens' lifetime
    clock.advance(600);
    const decay = { half_life_secs: 3600, min_salience: 0.9, min_age_secs: 0 };
    const direct = await member.post('/decay', decay);
    expect([direct.status, direct.body.code]).toEqual([403, 'scope_denied']);
    for (const body of [{ half_life_secs: 3600 }, decay]) {
      const evolve = await member.post('/evolve', { action: 'decay', ...body });
      expect([evolve.status, evolve.body.code]).toEqual([403, 'scope_denied']);
    }
    for (const uid of [secret, open]) expect((await o.get(`/node/${uid}`)).body).toMatchObject({ salience: 0.5, tombstone_at: null });
    // one node it can read, it may still decay
    expect((await member.post('/evolve', { action: 'decay', uid: open, half_life_secs: 3600 })).body).toMatchObject({ nodes_decayed: 1 });
  });

  it('such a member may neither reconfigure the embeddings (force drops every vector) nor embed every node', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Legal', node_type: 'Space', props: { default_classification: 'confidential' } })).body.uid;
    const secret = (await o.post('/node', { label: 'Settlement terms', node_type: 'Claim', props: { content: 's' }, space_uid: space })).body.uid;
    const vector = Array.from({ length: 384 }, (_, i) => (i % 7) / 7);
    expect((await o.put(`/node/${secret}/embedding`, { vector })).status).toBe(200);
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    const member = api(t.url, m.access_token, { org: owner.org_id });

    const configure = await member.post('/embeddings/configure', { dimensions: 8, force: true });
    expect([configure.status, configure.body.code]).toEqual([403, 'scope_denied']);
    const all = await member.post('/ingest/embed-all', {});
    expect([all.status, all.body.code]).toEqual([403, 'scope_denied']);
    expect((await o.get(`/node/${secret}/embedding`)).body).toMatchObject({ dimension: 384 });
  });
});
