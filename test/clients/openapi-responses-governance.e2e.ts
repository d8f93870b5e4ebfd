import { FixedClock } from '@strata/domain/time';
import { at } from '@strata/domain/testing/fixed-time';
import { Api, api, createApiKey, login, request, signUp } from '../support/http';
import { AnswerRecorder } from '../support/openapi-answers';
import { TestApp, startTestApp } from '../support/test-app';

/** The operations this file holds to their documented answers: every one must be called below. */
const COVERED = [/^\w+ \/v1\/spaces\b/, /^\w+ \/v1\/knowledge-health\//, /^\w+ \/v1\/governance\//, /^\w+ \/v1\/agents\/\{id\}\/tool-grants/];

/**
 * The Space, Knowledge Health, governance and tool-grant routes (REFERENCE §13, §14) answer
 * what the OpenAPI document says, checked as for the graph routes
 * (test/support/openapi-answers.ts): each call is made over HTTP with real sign-ups, JWTs and
 * keys, and its body validated against the declared 2xx schema with every object closed.
 */
describe('the OpenAPI document describes what the Space, Knowledge Health and governance routes answer', () => {
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  let t: TestApp;
  let doc: any;
  const answers = new AnswerRecorder();
  const { checked, failures } = answers;

  beforeAll(async () => {
    t = await startTestApp({ clock });
    doc = (await request(t.url, 'GET', '/openapi.json')).body;
    answers.use(doc);
  }, 60_000);
  afterAll(async () => t?.close());

  /** One call, recorded: a wrong status or an undocumented answer is collected, so one run names them all. */
  async function call(c: Api, method: string, url: string, template: string, body?: unknown, status = 200, note = '') {
    const r = await (method === 'GET' ? c.get(url) : method === 'DELETE' ? c.delete(url) : method === 'PATCH' ? c.patch(url, body) : method === 'PUT' ? c.put(url, body) : c.post(url, body));
    return answers.record(method, url, template, r, status, note);
  }

  it('Spaces and grants, Knowledge Health, settings, policies, sync, audit and tool grants', async () => {
    const owner = await signUp(t.url);
    let o = api(t.url, owner.access_token);
    const member = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: member.email, role: 'member' })).status).toBe(201);
    await createApiKey(t.url, owner.access_token, { agent_id: 'runner', name: 'runner key' });
    const ok = async (r: Promise<{ status: number; body: any; text: string }>) => {
      const x = await r;
      if (x.status >= 300) throw new Error(`${x.status} ${x.text}`);
      return x.body;
    };

    // Spaces: a Space with a classified node in it, a grant set, replaced and revoked
    const space = (await ok(o.post('/node', { label: 'Legal', node_type: 'Space', props: { default_classification: 'confidential', description: 'contracts' } }))).uid;
    await ok(o.post('/node', { label: 'NDA terms', node_type: 'Concept', space_uid: space }));
    const G = `/v1/spaces/${space}/grants`;
    await call(o, 'POST', G, '/v1/spaces/{space_uid}/grants', { principal_uid: `user:${member.user_id}`, access: 'read', classification_ceiling: 'internal' }, 201, 'new');
    await call(o, 'POST', G, '/v1/spaces/{space_uid}/grants', { principal_uid: `user:${member.user_id}`, access: 'write', classification_ceiling: null }, 200, 'replaced');
    await call(o, 'POST', G, '/v1/spaces/{space_uid}/grants', { principal_uid: 'agent:runner', access: 'read' }, 201, 'agent');
    await call(o, 'GET', '/v1/spaces', '/v1/spaces');
    await call(o, 'GET', G, '/v1/spaces/{space_uid}/grants');
    await call(o, 'DELETE', `${G}/agent:runner`, '/v1/spaces/{space_uid}/grants/{principal_uid}');

    // material for Knowledge Health: an unsupported Claim, a contradiction, a pending duplicate, an overdue approval
    const a = (await ok(o.post('/node', { label: 'The contract renews in May', node_type: 'Claim' }))).uid;
    const b = (await ok(o.post('/node', { label: 'The contract ends in May', node_type: 'Claim' }))).uid;
    await ok(o.post('/edge', { from_uid: a, to_uid: b, edge_type: 'Contradicts' }));
    const p1 = (await ok(o.post('/node', { label: 'Acme Corp', node_type: 'Person' }))).uid;
    const p2 = (await ok(o.post('/node', { label: 'Acme Corporation', node_type: 'Person' }))).uid;
    await ok(o.post('/edge', { from_uid: p2, to_uid: p1, edge_type: 'PossibleDuplicate', props: { similarity: 0.8, method: 'fuzzy', status: 'pending' } }));
    await ok(o.post('/agent/governance', { action: 'request_approval', label: 'Sign the renewal?' }));
    await ok(o.post('/agent/plan', { action: 'create_task', label: 'Check the claim', related_uids: [a] }));
    clock.advance(80 * 3600); // the approval is overdue; the tokens have expired
    o = api(t.url, (await login(t.url, owner.email, owner.password)).access_token);
    await call(o, 'GET', '/v1/knowledge-health/summary', '/v1/knowledge-health/summary');
    await call(o, 'GET', '/v1/knowledge-health/exceptions?status=open,acknowledged,resolved', '/v1/knowledge-health/exceptions');
    await call(o, 'GET', '/v1/knowledge-health/exceptions?limit=1', '/v1/knowledge-health/exceptions', undefined, 200, 'a page');

    // settings, policies, sync, audit
    await call(o, 'GET', '/v1/governance/settings', '/v1/governance/settings');
    await call(o, 'PATCH', '/v1/governance/settings', '/v1/governance/settings', { approval_deadline_hours: 48 });
    const policy = await call(o, 'POST', '/v1/governance/policies', '/v1/governance/policies', { name: 'No deletes by agents', effect: 'deny', match: { principals: ['agent:*'], routes: ['DELETE /node/{uid}'], spaces: [space] }, priority: 10 }, 201);
    await call(o, 'PATCH', `/v1/governance/policies/${policy.uid}`, '/v1/governance/policies/{policy_uid}', { status: 'published', status_reason: 'reviewed', expected_version: policy.version });
    await ok(o.post('/v1/governance/policies', { name: 'Review contracts', effect: 'require_approval', match: { node_types: ['Claim'] }, status: 'shadow' }));
    await call(o, 'GET', '/v1/governance/policies', '/v1/governance/policies');
    await call(o, 'POST', '/v1/governance/sync', '/v1/governance/sync', {});
    await call(o, 'GET', '/v1/governance/settings', '/v1/governance/settings', undefined, 200, 'synced');
    // a write the shadow policy matches: a decision record in the audit
    await ok(o.post('/node', { label: 'Another claim', node_type: 'Claim' }));
    await call(o, 'GET', '/v1/governance/audit', '/v1/governance/audit');
    await call(o, 'GET', '/v1/governance/audit?limit=1&order=asc', '/v1/governance/audit', undefined, 200, 'a page');

    // tool grants
    const tool = (await ok(o.post('/node', { label: 'Deploy', node_type: 'Affordance', props: { action_name: 'deploy', description: 'ship it', risk_level: 'high' } }))).uid;
    await ok(o.post('/node', { label: 'Archive', node_type: 'Affordance', props: { action_name: 'archive', description: 'file it' } }));
    const TG = '/v1/agents/runner/tool-grants';
    await call(o, 'PUT', `${TG}/${tool}`, '/v1/agents/{id}/tool-grants/{affordance_uid}', { expires_at: '2030-02-01T00:00:00.000Z', note: 'release train' }, 201, 'new');
    await call(o, 'PUT', `${TG}/${tool}`, '/v1/agents/{id}/tool-grants/{affordance_uid}', { note: 'no end' }, 200, 'updated');
    await call(o, 'GET', TG, '/v1/agents/{id}/tool-grants');
    await call(o, 'DELETE', `${TG}/${tool}`, '/v1/agents/{id}/tool-grants/{affordance_uid}');

    expect(failures).toEqual([]);
    const ops = Object.entries<any>(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((op) => COVERED.some((re) => re.test(op)));
    expect(ops.filter((op) => !checked.has(op))).toEqual([]);
  });
});
