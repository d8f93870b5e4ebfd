import { FixedClock } from '@strata/domain/time';
import { TestApp, startTestApp } from '../support/test-app';
import { api, createApiKey, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §8.1 with §13.1: `GET /stats` counts only what the caller may read. */
describe('GET /stats under the Space rule', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock });
  });
  afterAll(() => t.close());

  it('leaves out hidden nodes, the edges touching them and their versions; scoped keys are refused', async () => {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const space = (await o.post('/node', { label: 'Legal', node_type: 'Space', props: { default_classification: 'confidential' } })).body.uid;
    const anchor = (await o.post('/node', { label: 'Public claim', node_type: 'Claim' })).body.uid;
    const secret = (await o.post('/node', { label: 'Settlement terms', node_type: 'Claim', space_uid: space })).body.uid;
    expect((await o.patch(`/node/${secret}`, { props: { content: 'revised' } })).status).toBe(200); // a second version
    expect((await o.post('/edge', { from_uid: anchor, to_uid: secret, edge_type: 'Contradicts' })).status).toBe(201);
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    const member = api(t.url, m.access_token, { org: owner.org_id });

    const all = (await o.get('/stats')).body;
    const seen = await member.get('/stats');
    expect(seen.status).toBe(200);
    const s = seen.body;
    // hidden: the claim (2 versions), its InSpace edge and the Contradicts edge (1 version each)
    expect(s.total_nodes).toBe(all.total_nodes - 1);
    expect(s.live_nodes).toBe(all.live_nodes - 1);
    expect(s.nodes_by_type.Claim).toBe(all.nodes_by_type.Claim - 1);
    expect(s.nodes_by_type.Space).toBe(all.nodes_by_type.Space);
    expect(s.nodes_by_layer.epistemic).toBe(all.nodes_by_layer.epistemic - 1);
    expect(s.live_edges).toBe(all.live_edges - 2);
    expect(s.edges_by_type.Contradicts).toBeUndefined();
    expect(s.edges_by_type.InSpace).toBeUndefined();
    expect(all.edges_by_type).toMatchObject({ Contradicts: 1, InSpace: 1 });
    expect(s.total_versions).toBe(all.total_versions - 4);
    expect(s.embedding_count).toBeLessThanOrEqual(all.embedding_count);
    expect(JSON.stringify(s)).not.toContain(secret);

    // with a grant reaching the claim, the member counts what the owner counts
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${m.user_id}`, access: 'read' })).status).toBe(201);
    const granted = (await member.get('/stats')).body;
    expect({ ...granted, generated_at: 0 }).toEqual({ ...all, generated_at: 0 });

    // Space- and Project-scoped keys are refused (REFERENCE §8.1)
    const spaceKey = api(t.url, (await createApiKey(t.url, owner.access_token, { space_uids: [space] })).key);
    expect((await spaceKey.get('/stats')).body.code).toBe('scope_denied');
    const project = (await o.post('/node', { label: 'Orion', node_type: 'Project' })).body.uid;
    const projectKey = api(t.url, (await createApiKey(t.url, owner.access_token, { project_uids: [project] })).key);
    expect((await projectKey.get('/stats')).body.code).toBe('scope_denied');
  });
});
