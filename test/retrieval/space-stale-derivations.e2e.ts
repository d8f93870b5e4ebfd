import { Api, api, signUp } from '../support/http';
import { TestApp, startTestApp } from '../support/test-app';
import { link, mk } from './retrieval-fixture';
import { TickingClock } from '../support/ticking-clock';

/**
 * `stale_derivations` (REFERENCE §5.6) for a caller who cannot read one premise: that premise
 * is absent for it with the edge to it (§13.1), so it is neither named nor makes the node stale.
 */
describe('stale_derivations names only premises the caller can read', () => {
  /** the service's clock: each write later than the last; the test moves it instead of waiting */
  const clock = new TickingClock();
  let t: TestApp;
  let owner: Api;
  let member: Api;
  const u: Record<string, string> = {};
  const SECRET = 'Secret premise about layoffs';

  beforeAll(async () => {
    t = await startTestApp({ clock });
    const o = await signUp(t.url);
    owner = api(t.url, o.access_token);
    const node = (body: { node_type: string; label: string } & Record<string, unknown>) => mk(owner, body.node_type, body.label, body);
    const edge = (from_uid: string, to_uid: string) => link(owner, from_uid, to_uid, 'DerivedFrom');
    const vault = await node({ label: 'Vault', node_type: 'Space' });
    u.secret = await node({ label: SECRET, node_type: 'Claim', space_uid: vault });
    u.open = await node({ label: 'Open premise', node_type: 'Claim' });
    u.onlySecret = await node({ label: 'Derived from the secret only', node_type: 'Claim' });
    u.both = await node({ label: 'Derived from both', node_type: 'Claim' });
    await edge(u.onlySecret, u.secret);
    await edge(u.both, u.secret);
    await edge(u.both, u.open);
    clock.advance(10);
    expect((await owner.patch(`/node/${u.secret}`, { summary: 'revised' })).status).toBe(200);
    clock.advance(10);
    expect((await owner.patch(`/node/${u.open}`, { summary: 'revised' })).status).toBe(200);
    const m = await signUp(t.url);
    const joined = await owner.post(`/v1/orgs/${o.org_id}/members`, { email: m.email, role: 'member' });
    if (joined.status >= 300) throw new Error(`add member: ${joined.status} ${joined.text}`);
    member = api(t.url, m.access_token, { org: o.org_id });
  }, 60_000);
  afterAll(() => t.close());

  it('the owner sees both derived nodes stale, the secret premise first', async () => {
    const r = await owner.post('/retrieve', { action: 'stale_derivations' });
    expect(r.body.items.map((i: any) => i.node.uid).sort()).toEqual([u.onlySecret, u.both].sort());
    expect(r.body.items.find((i: any) => i.node.uid === u.both).stale_premises.map((p: any) => p.uid)).toEqual([u.secret, u.open]);
  });

  it('a member without the grant sees only the readable premise, and its stale_since', async () => {
    expect((await member.get(`/node/${u.secret}`)).status).toBe(404);
    const r = await member.post('/retrieve', { action: 'stale_derivations' });
    expect(r.status).toBe(200);
    expect(r.body.items.map((i: any) => i.node.uid)).toEqual([u.both]);
    const [item] = r.body.items;
    expect(item.stale_premises.map((p: any) => [p.uid, p.reason])).toEqual([[u.open, 'premise_updated']]);
    expect(item.stale_since).toBe(item.stale_premises[0].changed_at);
    expect(r.text).not.toContain(u.secret);
    expect(r.text).not.toContain(SECRET);
    expect((await member.post('/retrieve', { action: 'curation_counts' })).body.stale_derivations).toBe(1);
  });
});
