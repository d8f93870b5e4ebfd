import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, createApiKey, signUp, SignedUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/** REFERENCE §13.6: structured policies, their lifecycle, evaluation and the approval replay flow. */
describe('structured policies (REFERENCE §13.6)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm });
  });
  afterAll(() => t.close());

  /** An organization with an owner, an admin and a member (write role). */
  async function org(): Promise<{ owner: SignedUp; o: Api; admin: Api; member: Api; memberId: string }> {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const a = await signUp(t.url);
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: a.email, role: 'admin' })).status).toBe(201);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    return { owner, o, admin: api(t.url, a.access_token, { org: owner.org_id }), member: api(t.url, m.access_token, { org: owner.org_id }), memberId: m.user_id };
  }

  it('creates, lists and validates policies: 422 invalid_policy with every error, 400 for other fields, auth', async () => {
    const { o, member } = await org();
    const space = (await o.post('/node', { label: 'Legal', node_type: 'Space' })).body.uid;
    const claim = (await o.post('/node', { label: 'c', node_type: 'Claim' })).body.uid;
    const tool = (await o.post('/node', { label: 'send mail', node_type: 'Affordance', props: { action_name: 'send' } })).body.uid;

    const created = await o.post('/v1/governance/policies', {
      name: 'No confidential claims',
      effect: 'deny',
      match: { routes: ['POST /node', 'PATCH /node/{uid}', 'POST /agent/governance#resolve_approval', '* /v1/**'], node_types: ['claim'], min_classification: 'confidential', spaces: [space], tools: [tool] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'No confidential claims',
      description: null,
      status: 'draft',
      effect: 'deny',
      priority: 0,
      version: 1,
      status_reason: null,
      created_at: '2030-01-01T00:00:00.000Z',
      mirrored_version: null,
    });
    expect(created.body.match.node_types).toEqual(['Claim']);

    const bad = await o.post('/v1/governance/policies', {
      name: 'bad',
      effect: 'deny',
      match: { colour: ['red'], principals: ['root', 'role:owner', 'user:*'], routes: ['POST /nowhere', 'FETCH /node'], node_types: ['NoSuchType'], layers: ['sky'], spaces: [claim], projects: [space], tools: [claim] },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('invalid_policy');
    const paths = bad.body.errors.map((e: { path: string }) => e.path).sort();
    expect(paths).toEqual(
      ['match.colour', 'match.layers[0]', 'match.node_types[0]', 'match.principals[0]', 'match.projects[0]', 'match.routes[0]', 'match.routes[1]', 'match.spaces[0]', 'match.tools[0]'].sort(),
    );
    expect((await o.post('/v1/governance/policies', { name: 'empty', effect: 'deny', match: {} })).body.code).toBe('invalid_policy');
    expect((await o.post('/v1/governance/policies', { name: 'not an object', effect: 'deny', match: ['x'] })).body.code).toBe('invalid_policy');
    for (const [body, code, field] of [
      [{ effect: 'deny', match: { layers: ['agent'] } }, 'missing_field', 'name'],
      [{ name: 'x', match: { layers: ['agent'] } }, 'missing_field', 'effect'],
      [{ name: 'x', effect: 'deny' }, 'missing_field', 'match'],
      [{ name: 'x', effect: 'block', match: { layers: ['agent'] } }, 'invalid_field', 'effect'],
      [{ name: 'x', effect: 'deny', match: { layers: ['agent'] }, priority: 1001 }, 'invalid_field', 'priority'],
      [{ name: 'x', effect: 'deny', match: { layers: ['agent'] }, status: 'rejected' }, 'invalid_field', 'status'],
      [{ name: 'x'.repeat(201), effect: 'deny', match: { layers: ['agent'] } }, 'invalid_field', 'name'],
    ] as const) {
      const r = await o.post('/v1/governance/policies', body);
      expect([r.status, r.body.code, r.body.field]).toEqual([400, code, field]);
    }

    await o.post('/v1/governance/policies', { name: 'high', effect: 'allow', match: { layers: ['agent'] }, priority: 10, status: 'shadow' });
    await o.post('/v1/governance/policies', { name: 'low', effect: 'require_approval', match: { layers: ['agent'] }, priority: -5, status: 'published' });
    const list = await member.get('/v1/governance/policies');
    expect(list.status).toBe(200);
    expect(list.body.items.map((p: { name: string }) => p.name)).toEqual(['high', 'No confidential claims', 'low']);
    expect(list.body).toMatchObject({ has_more: false, limit: 100, offset: 0 });
    expect((await member.get('/v1/governance/policies?status=published')).body.items.map((p: { name: string }) => p.name)).toEqual(['low']);
    expect((await member.get('/v1/governance/policies?effect=allow&limit=1')).body.items.map((p: { name: string }) => p.name)).toEqual(['high']);
    expect((await member.get('/v1/governance/policies?status=live')).body.code).toBe('invalid_field');
    expect((await member.post('/v1/governance/policies', { name: 'm', effect: 'deny', match: { layers: ['agent'] } })).body.code).toBe('insufficient_role');
    expect((await o.get('/v1/governance/settings')).body.policy_counts).toEqual({ draft: 1, shadow: 1, published: 1, rejected: 0 });
  });

  it('API keys are refused on every policy route', async () => {
    const owner = await signUp(t.url);
    const k = api(t.url, (await createApiKey(t.url, owner.access_token)).key);
    expect((await k.get('/v1/governance/policies')).body.code).toBe('api_key_not_allowed');
    expect((await k.post('/v1/governance/policies', { name: 'x', effect: 'deny', match: { layers: ['agent'] } })).body.code).toBe('api_key_not_allowed');
  });

  it('follows the lifecycle table', async () => {
    const { o } = await org();
    type Cell = 'ok' | 'noop' | 409 | 422;
    // from → [→shadow, →published, →rejected, edit effect/match/priority, edit name/description]
    const table: Record<string, Cell[]> = {
      draft: ['ok', 'ok', 'ok', 'ok', 'ok'],
      shadow: ['noop', 'ok', 'ok', 'ok', 'ok'],
      published: ['ok', 'noop', 'ok', 422, 'ok'],
      rejected: [409, 409, 'noop', 409, 409],
    };
    const patches = [{ status: 'shadow' }, { status: 'published' }, { status: 'rejected', status_reason: 'obsolete' }, { priority: 7 }, { name: 'renamed' }];
    for (const [from, row] of Object.entries(table)) {
      for (let i = 0; i < patches.length; i++) {
        const created = (await o.post('/v1/governance/policies', { name: `p-${from}-${i}`, effect: 'deny', match: { layers: ['memory'] }, status: from === 'rejected' ? 'draft' : from })).body;
        let version = created.version;
        if (from === 'rejected') version = (await o.patch(`/v1/governance/policies/${created.uid}`, { status: 'rejected' })).body.version;
        const r = await o.patch(`/v1/governance/policies/${created.uid}`, patches[i]);
        const cell = row[i];
        const what = `${from} ${JSON.stringify(patches[i])}`;
        if (cell === 'ok') expect([what, r.status, r.body.version]).toEqual([what, 200, version + 1]);
        else if (cell === 'noop') expect([what, r.status, r.body.version]).toEqual([what, 200, version]);
        else if (cell === 409) expect([what, r.status, r.body.code, r.body.from_status]).toEqual([what, 409, 'invalid_transition', 'rejected']);
        else expect([what, r.status, r.body.code]).toEqual([what, 422, 'immutable_field']);
      }
    }
    const p = (await o.post('/v1/governance/policies', { name: 'v', effect: 'deny', match: { layers: ['memory'] } })).body;
    const moved = await o.patch(`/v1/governance/policies/${p.uid}`, { status: 'published', status_reason: 'reviewed', expected_version: 1 });
    expect(moved.body).toMatchObject({ status: 'published', status_reason: 'reviewed', version: 2 });
    expect((await o.patch(`/v1/governance/policies/${p.uid}`, { name: 'again', expected_version: 1 })).body).toMatchObject({ code: 'version_conflict', current_version: 2 });
    expect((await o.patch('/v1/governance/policies/nope', { name: 'x' })).status).toBe(404);
    expect((await o.patch(`/v1/governance/policies/${p.uid}`, { status: 'archived' })).body.code).toBe('invalid_field');
    // a blank name or description is refused, not taken as omitted while the rest applies
    const d = (await o.post('/v1/governance/policies', { name: 'd', description: 'kept', effect: 'deny', match: { layers: ['memory'] } })).body;
    for (const [body, code, field] of [
      [{ name: '', priority: 5 }, 'missing_field', 'name'],
      [{ name: '   ', priority: 5 }, 'missing_field', 'name'],
      [{ description: '', priority: 5 }, 'invalid_field', 'description'],
      [{ description: ' \t ', priority: 5 }, 'invalid_field', 'description'],
    ] as const) {
      const r = await o.patch(`/v1/governance/policies/${d.uid}`, body);
      expect([body, r.status, r.body.code, r.body.field]).toEqual([body, 400, code, field]);
    }
    expect((await o.get('/v1/governance/policies')).body.items.find((x: { uid: string }) => x.uid === d.uid)).toMatchObject({ name: 'd', description: 'kept', priority: 0, version: 1 });
  });

  it('deny refuses the write (403 policy_denied, nothing written); shadow policies warn; mode shadow and off', async () => {
    const { o, member } = await org();
    const deny = (await o.post('/v1/governance/policies', { name: 'no claims by members', effect: 'deny', match: { principals: ['role:member'], node_types: ['Claim'] }, status: 'published' })).body;
    const shadow = (await o.post('/v1/governance/policies', { name: 'watch concepts', effect: 'require_approval', match: { routes: ['POST /node'], node_types: ['Concept'] }, status: 'shadow' })).body;

    const refused = await member.post('/node', { label: 'secret claim', node_type: 'Claim' });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'policy_denied', policy_uid: deny.uid, policy_name: 'no claims by members' });
    expect((await o.get('/nodes?node_type=Claim')).body.items).toEqual([]);
    // input errors never produce a decision: still a 400
    expect((await member.post('/node', { label: 'x', node_type: 'Claim', confidence: 7 })).body.code).toBe('invalid_field');
    // the owner is not a member: allowed
    expect((await o.post('/node', { label: 'owner claim', node_type: 'Claim' })).status).toBe(201);
    // through a cognitive route and /batch the same
    expect((await member.post('/epistemic/argument', { claim: { label: 'argued' } })).body.code).toBe('policy_denied');
    const batch = await member.post('/batch', { nodes: [{ label: 'fine', node_type: 'Concept' }, { label: 'claim in batch', node_type: 'Claim' }] });
    expect(batch.body.code).toBe('policy_denied');
    expect((await o.get('/nodes?node_type=Concept')).body.items).toEqual([]);

    const warned = await member.post('/node', { label: 'a concept', node_type: 'Concept' });
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe(`299 - "shadow policy ${shadow.uid} would require_approval"`);
    expect((await member.post('/node', { label: 'a memory', node_type: 'Lesson' })).headers.get('warning')).toBeNull();

    await o.patch('/v1/governance/settings', { mode: 'shadow' });
    const logged = await member.post('/node', { label: 'claim in shadow mode', node_type: 'Claim' });
    expect(logged.status).toBe(201);
    expect(logged.headers.get('warning')).toBe(`299 - "shadow policy ${deny.uid} would deny"`);

    await o.patch('/v1/governance/settings', { mode: 'off' });
    const off = await member.post('/node', { label: 'concept, mode off', node_type: 'Concept' });
    expect(off.status).toBe(201);
    expect(off.headers.get('warning')).toBeNull();
    await o.patch('/v1/governance/settings', { mode: 'enforce' });

    // a published policy moved back to shadow stops deciding from the next request
    await o.patch(`/v1/governance/policies/${deny.uid}`, { status: 'shadow' });
    expect((await member.post('/node', { label: 'claim again', node_type: 'Claim' })).status).toBe(201);
    // highest priority wins; at equal priority deny beats allow
    await o.post('/v1/governance/policies', { name: 'allow lessons', effect: 'allow', match: { node_types: ['Lesson'] }, priority: 5, status: 'published' });
    await o.post('/v1/governance/policies', { name: 'deny lessons', effect: 'deny', match: { node_types: ['Lesson'] }, priority: 1, status: 'published' });
    expect((await member.post('/node', { label: 'lesson', node_type: 'Lesson' })).status).toBe(201);
    await o.post('/v1/governance/policies', { name: 'deny lessons too', effect: 'deny', match: { node_types: ['Lesson'] }, priority: 5, status: 'published' });
    expect((await member.post('/node', { label: 'lesson 2', node_type: 'Lesson' })).body).toMatchObject({ code: 'policy_denied', policy_name: 'deny lessons too' });
  });

  it('require_approval: an Approval, owner/admin resolution, replay with X-Approval-Uid once, within the TTL', async () => {
    const { owner, o, admin, member } = await org();
    const policy = (await o.post('/v1/governance/policies', { name: 'confidential needs approval', effect: 'require_approval', match: { routes: ['POST /node'], min_classification: 'confidential' }, status: 'published' })).body;
    const body = { label: 'merger plan', node_type: 'Claim', classification: 'confidential' };

    const first = await member.post('/node', body);
    expect(first.status).toBe(403);
    expect(first.body).toMatchObject({ code: 'approval_required', policy_uid: policy.uid });
    const approvalUid = first.body.approval_uid;
    const approval = (await o.get(`/node/${approvalUid}`)).body;
    expect(approval).toMatchObject({ node_type: 'Approval', props: { status: 'pending', target_type: 'request', target_uid: null, reason: 'confidential needs approval' } });
    expect(JSON.parse(approval.props.conditions)).toMatchObject({ method: 'POST', route: '/node' });
    expect((await o.get('/nodes?node_type=Claim')).body.items).toEqual([]);
    // a repeat while pending names the same approval
    expect((await member.post('/node', body)).body.approval_uid).toBe(approvalUid);
    // pending: the replay is still refused
    expect((await member.post('/node', body, { headers: { 'x-approval-uid': approvalUid } })).body).toMatchObject({ code: 'approval_required', approval_uid: approvalUid });

    // the member cannot resolve it (it asked for it); nor could another member
    expect((await member.post('/agent/governance', { action: 'resolve_approval', approval_uid: approvalUid, approved: true })).body.code).toBe('forbidden');
    const resolved = await admin.post('/agent/governance', { action: 'resolve_approval', approval_uid: approvalUid, approved: true });
    expect(resolved.status).toBe(200);

    // another body is another request
    expect((await member.post('/node', { ...body, label: 'other plan' }, { headers: { 'x-approval-uid': approvalUid } })).body).toMatchObject({ code: 'approval_invalid', reason: 'mismatch' });
    const replay = await member.post('/node', body, { headers: { 'x-approval-uid': approvalUid } });
    expect(replay.status).toBe(201);
    expect(replay.body.label).toBe('merger plan');
    expect((await member.post('/node', body, { headers: { 'x-approval-uid': approvalUid } })).body).toMatchObject({ code: 'approval_invalid', reason: 'consumed' });

    // denied
    const second = (await member.post('/node', { ...body, label: 'second' })).body.approval_uid;
    expect(second).not.toBe(approvalUid);
    await o.post('/agent/governance', { action: 'resolve_approval', approval_uid: second, approved: false });
    expect((await member.post('/node', { ...body, label: 'second' }, { headers: { 'x-approval-uid': second } })).body.code).toBe('approval_denied');

    // the owner's own request: the owner may not resolve it; an admin may
    const own = (await o.post('/node', { ...body, label: 'owner plan' })).body.approval_uid;
    expect((await o.post('/agent/governance', { action: 'resolve_approval', approval_uid: own, approved: true })).body.code).toBe('forbidden');
    expect((await admin.post('/agent/governance', { action: 'resolve_approval', approval_uid: own, approved: true })).status).toBe(200);
    // a member that did not ask cannot resolve a request approval
    const adminAsk = (await admin.post('/node', { ...body, label: 'admin plan' })).body.approval_uid;
    expect((await member.post('/agent/governance', { action: 'resolve_approval', approval_uid: adminAsk, approved: true })).body.code).toBe('insufficient_role');
    expect((await member.post('/node', body, { headers: { 'x-approval-uid': 'no-such-approval' } })).status).toBe(404);
    // expired: decided more than approval_ttl_hours ago (keys do not expire with the clock; JWTs would)
    const ownerKey = (await createApiKey(t.url, owner.access_token)).key;
    const k = o.as(ownerKey);
    const third = (await k.post('/node', { ...body, label: 'third' })).body.approval_uid;
    await admin.post('/agent/governance', { action: 'resolve_approval', approval_uid: third, approved: true });
    clock.advance(25 * 3600);
    expect((await k.post('/node', { ...body, label: 'third' }, { headers: { 'x-approval-uid': third } })).body).toMatchObject({ code: 'approval_invalid', reason: 'expired' });

  });

  it('governs ingestion and tool invocations like every other write', async () => {
    const { o, member } = await org();
    const tool = (await o.post('/node', { label: 'deploy', node_type: 'Affordance', props: { action_name: 'deploy' } })).body.uid;
    await o.post('/v1/governance/policies', { name: 'no deploys', effect: 'deny', match: { tools: [tool] }, status: 'published' });
    await o.post('/v1/governance/policies', { name: 'members do not ingest', effect: 'deny', match: { principals: ['role:member'], routes: ['POST /ingest/**'] }, status: 'published' });
    const run = await o.post('/agent/execution', { action: 'start', label: 'run deploy', props: { description: 'deploy', affordance_uid: tool } });
    expect(run.body).toMatchObject({ code: 'policy_denied', policy_name: 'no deploys' });
    expect((await o.post('/agent/execution', { action: 'start', label: 'no tool', props: { description: 'manual' } })).status).toBe(201);
    // ingestion extracts with the offline extractor here
    const ingest = await member.post('/ingest/chunk', { content: 'Ada Lovelace met Charles Babbage in London.', label: 'notes' });
    expect(ingest.body.code).toBe('policy_denied');
    expect((await o.get('/nodes?node_type=Chunk')).body.items).toEqual([]);
    expect((await o.post('/ingest/chunk', { content: 'Ada Lovelace met Charles Babbage in London.', label: 'notes' })).status).toBe(201);
  });
});
