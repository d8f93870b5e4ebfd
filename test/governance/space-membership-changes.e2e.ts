import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * The Space membership a member's reads are checked against is kept between requests: each
 * change that can move it (an InSpace edge made or removed, a Space tombstoned or restored, a
 * classification raised or lowered) must act from the very next read.
 */
describe('Space membership changes act from the next read', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('a member sees exactly what the current membership allows after every kind of change', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const u = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: u.email, role: 'member' })).status).toBe(201);
    const m = api(t.url, u.access_token, { org: owner.org_id });
    const vault = (await o.post('/node', { label: 'Vault', node_type: 'Space' })).body.uid;
    const shared = (await o.post('/node', { label: 'Shared', node_type: 'Space' })).body.uid;
    expect((await o.post(`/v1/spaces/${shared}/grants`, { principal_uid: `user:${u.user_id}`, access: 'read', classification_ceiling: 'internal' })).status).toBe(201);
    const note = (await o.post('/node', { label: 'Board minutes', node_type: 'Note', props: { content: 'minutes' } })).body.uid;
    const status = async () => (await m.get(`/node/${note}`)).status;

    expect(await status()).toBe(200); // unspaced
    const inVault = (await o.post('/edge', { from_uid: note, to_uid: vault, edge_type: 'InSpace' })).body.uid;
    expect(await status()).toBe(404); // in a Space the member has no grant on
    const inShared = (await o.post('/edge', { from_uid: note, to_uid: shared, edge_type: 'InSpace' })).body.uid;
    expect(await status()).toBe(200); // a grant on some Space of the node admits it
    expect((await o.delete(`/edge/${inShared}`)).status).toBe(200);
    expect(await status()).toBe(404);
    expect((await o.delete(`/edge/${inVault}`)).status).toBe(200);
    expect(await status()).toBe(200); // unspaced again
    expect((await o.post('/edge', { from_uid: note, to_uid: shared, edge_type: 'InSpace' })).status).toBe(201);
    expect((await o.patch(`/node/${note}`, { classification: 'confidential' })).status).toBe(200);
    expect(await status()).toBe(404); // above the grant's ceiling
    expect((await o.patch(`/node/${note}`, { classification: 'internal' })).status).toBe(200);
    expect(await status()).toBe(200);
    expect((await o.post('/edge', { from_uid: note, to_uid: vault, edge_type: 'InSpace' })).status).toBe(201);
    expect((await o.delete(`/node/${shared}`)).status).toBe(200);
    expect(await status()).toBe(404); // its one admitting Space is gone; the vault remains
    expect((await o.delete(`/node/${vault}`)).status).toBe(200);
    expect(await status()).toBe(200); // no live Space left: unspaced
    const search = await m.post('/search', { query: 'Board minutes' });
    expect(search.body.map((r: { uid: string }) => r.uid)).toContain(note);
  });

  it('a member exports the graph without the spaced nodes it may not read, their edges and aliases, counted as given', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const u = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: u.email, role: 'member' })).status).toBe(201);
    const m = api(t.url, u.access_token, { org: owner.org_id });
    const vault = (await o.post('/node', { label: 'Vault', node_type: 'Space' })).body.uid;
    const open = (await o.post('/node', { label: 'Open note', node_type: 'Note', props: { content: 'open' } })).body.uid;
    const secret = (await o.post('/node', { label: 'Secret note', node_type: 'Note', props: { content: 'secret' }, space_uid: vault })).body.uid;
    const link = (await o.post('/edge', { from_uid: open, to_uid: secret, edge_type: 'RelatedTo' })).body.uid;
    expect((await o.post('/alias', { text: 'the hidden one', canonical_uid: secret })).status).toBeLessThan(300);

    const all = (await o.get('/export')).body;
    expect(all.nodes.map((n: { uid: string }) => n.uid)).toEqual(expect.arrayContaining([open, secret, vault]));
    expect(all.edges.map((e: { uid: string }) => e.uid)).toContain(link);

    const r = await m.get('/export');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain(secret);
    expect(r.text).not.toContain('the hidden one');
    const mine = r.body;
    expect(mine.nodes.map((n: { uid: string }) => n.uid).sort()).toEqual([open, vault].sort());
    expect(mine.edges).toEqual([]);
    expect(mine.counts).toMatchObject({ nodes: mine.nodes.length, edges: 0, aliases: mine.aliases.length });
    // a Space-scoped key is refused the route, as before
    const scoped = await o.post('/v1/api-keys', { name: 'scoped', scopes: ['read'], space_uids: [vault] });
    expect((await api(t.url, scoped.body.key).get('/export')).body.code).toBe('scope_denied');
  });
});
