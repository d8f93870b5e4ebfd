import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { BUILD_TIMEOUT, ensureCliBuilt, expectExit, runCli } from '../cli/cli-runner';
import { api, createApiKey, signUp } from '../support/http';
import { startTestApp } from '../support/test-app';
import { link, mk } from '../retrieval/retrieval-fixture';

beforeAll(() => ensureCliBuilt(), BUILD_TIMEOUT);

/**
 * REFERENCE §12.8 and §12.9: Project grants are a stream of the log. After grants are set,
 * replaced, revoked by hand and revoked by a member's removal (`ProjectGrantRevoked`, reason
 * `member_removed`), the projections rebuilt from the log equal the live ones, and the service
 * serves the same grants, audit and agent scope from them.
 */
describe('Project grants after a member is removed: a rebuild gives the same read models', () => {
  it('verify finds every projection identical to a fresh rebuild; after a rebuild the grants, the audit and the agent’s scope are unchanged', async () => {
    const clock = new FixedClock(at('2030-03-01T09:00:00Z'));
    let t = await startTestApp({ clock });
    const dataDir = t.dataDir;
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const p1 = await mk(o, 'Project', 'Orion');
    const p2 = await mk(o, 'Project', 'Vega');
    const doc = await mk(o, 'Document', 'Orion spec', { props: { title: 'Orion spec' } });
    const chunk = await mk(o, 'Chunk', 'Orion spec · 0', { props: { content: 'Tiles crack.', chunk_index: 0 } });
    const claim = await mk(o, 'Claim', 'Tiles crack');
    const loose = await mk(o, 'Claim', 'Loose claim');
    await link(o, chunk, doc, 'ChunkOf');
    await link(o, doc, p1, 'PartOfProject');
    await link(o, claim, chunk, 'ExtractedFrom');

    const m = await signUp(t.url);
    const stay = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: stay.email, role: 'viewer' })).status).toBe(201);
    const agentKey = (await createApiKey(t.url, owner.access_token, { agent_id: 'scout' })).key;
    const grant = (project: string, principal_uid: string, role: string) => o.post(`/v1/projects/${project}/grants`, { principal_uid, role });
    expect((await grant(p1, `user:${m.user_id}`, 'viewer')).status).toBe(201);
    clock.advance(60);
    expect((await grant(p1, `user:${m.user_id}`, 'editor')).status).toBe(200); // replaced
    expect((await grant(p2, `user:${m.user_id}`, 'viewer')).status).toBe(201);
    expect((await grant(p1, `user:${stay.user_id}`, 'editor')).status).toBe(201);
    expect((await grant(p2, `user:${stay.user_id}`, 'editor')).status).toBe(201);
    expect((await grant(p1, 'agent:scout', 'agent')).status).toBe(201);
    clock.advance(60);
    expect((await o.delete(`/v1/projects/${p2}/grants/${encodeURIComponent(`user:${stay.user_id}`)}`)).status).toBe(200);
    clock.advance(60);
    // the member leaves: both of their grants are revoked in the log
    expect((await o.delete(`/v1/orgs/${owner.org_id}/members/${m.user_id}`)).status).toBe(200);

    const snapshot = async (base: string, token: string, key: string) => {
      const c = api(base, token);
      const agent = api(base, key);
      return {
        p1: (await c.get(`/v1/projects/${p1}/grants`)).body,
        p2: (await c.get(`/v1/projects/${p2}/grants`)).body,
        audit: (await c.get('/v1/governance/audit?kind=governance_change&order=asc&limit=500')).body.items,
        agent: [(await agent.get(`/node/${claim}`)).status, (await agent.get(`/node/${loose}`)).status, (await agent.patch(`/node/${claim}`, { props: { content: 'Tiles crack, confirmed' } })).status],
      };
    };
    const before = await snapshot(t.url, owner.access_token, agentKey);
    expect(before.p1.items.map((g: { principal_uid: string; role: string }) => [g.principal_uid, g.role])).toEqual([
      [`user:${stay.user_id}`, 'editor'],
      ['agent:scout', 'agent'],
    ]);
    expect(before.p2.items).toEqual([]);
    expect(before.audit.filter((r: { event_type: string }) => r.event_type === 'ProjectGrantRevoked').map((r: { subject_uid: string }) => r.subject_uid).sort()).toEqual([p1, p2, p2].sort());
    expect(before.agent).toEqual([200, 404, 200]);
    await t.close({ keepData: true });

    expect(expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0).stdout).toMatch(/identical to a fresh rebuild/);
    expectExit(await runCli(['projections', 'rebuild', '--data-dir', dataDir]), 0);
    expectExit(await runCli(['projections', 'verify', '--data-dir', dataDir]), 0);

    t = await startTestApp({ clock, dataDir });
    try {
      const after = await snapshot(t.url, owner.access_token, agentKey);
      expect(after).toEqual(before);
      // the removed member's grants stay revoked after the rebuild: back in the organization, they have none
      expect((await api(t.url, owner.access_token).post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
      const p1Grants = (await api(t.url, owner.access_token).get(`/v1/projects/${p1}/grants`)).body.items.map((g: { principal_uid: string }) => g.principal_uid);
      expect(p1Grants).not.toContain(`user:${m.user_id}`);
    } finally {
      await t.close();
    }
  }, 180_000);
});
