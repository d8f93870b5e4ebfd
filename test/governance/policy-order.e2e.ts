import { eventually } from '@strata/domain/testing/eventually';
import { FixedClock } from '@strata/domain/time';
import { loadConfig } from '@strata/platform/config/strata-config';
import { TestApp, startTestApp } from '../support/test-app';
import { Api, api, signUp } from '../support/http';
import { at } from '@strata/domain/testing/fixed-time';

/**
 * REFERENCE §13.6: where policies are evaluated. After the input, reference and access checks,
 * before the state guards; and on the writes a job makes for the request that queued it.
 */
describe('policy evaluation order and background writes (REFERENCE §13.6)', () => {
  let t: TestApp;
  const clock = new FixedClock(at('2030-01-01T00:00:00Z'));
  beforeAll(async () => {
    t = await startTestApp({ clock, llm: loadConfig({ STRATA_LLM_PROVIDER: 'offline' }).llm });
  });
  afterAll(() => t.close());

  async function org(): Promise<{ o: Api; admin: Api; member: Api; memberId: string }> {
    const owner = await signUp(t.url);
    const o = api(t.url, owner.access_token);
    const a = await signUp(t.url);
    const m = await signUp(t.url);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: a.email, role: 'admin' })).status).toBe(201);
    expect((await o.post(`/v1/orgs/${owner.org_id}/members`, { email: m.email, role: 'member' })).status).toBe(201);
    return { o, admin: api(t.url, a.access_token, { org: owner.org_id }), member: api(t.url, m.access_token, { org: owner.org_id }), memberId: m.user_id };
  }

  async function decisions(o: Api, principal: string) {
    return (await o.get(`/v1/governance/audit?kind=policy_decision&principal=${encodeURIComponent(principal)}&limit=500`)).body.items;
  }

  /** An Execution that already completed: completing it again is a state-guard 409. */
  async function finishedExecution(o: Api): Promise<string> {
    const uid = (await o.post('/agent/execution', { action: 'start', label: 'nightly import' })).body.uid;
    expect((await o.post('/agent/execution', { action: 'complete', execution_uid: uid })).status).toBe(200);
    return uid;
  }

  it('a deny answers before the state guard would (403, not 409), and only its decision is written', async () => {
    const { o, member, memberId } = await org();
    const exec = await finishedExecution(o);
    const again = { action: 'complete', execution_uid: exec };
    // no policy: the state guard answers
    expect((await member.post('/agent/execution', again)).body.code).toBe('invalid_transition');

    const deny = (await o.post('/v1/governance/policies', { name: 'members leave executions alone', effect: 'deny', status: 'published', match: { principals: ['role:member'], node_types: ['Execution'] } })).body;
    const refused = await member.post('/agent/execution', again);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'policy_denied', policy_uid: deny.uid });
    const recorded = await decisions(o, memberId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ route: '/agent/execution', target_uids: [exec], decision: { effect: 'deny', enforced: true, policy_uids: [deny.uid] } });
    const node = (await o.get(`/node/${exec}`)).body;
    expect([node.version, node.props.status]).toEqual([2, 'completed']);

    // input and reference errors still come first, and produce no decision
    expect((await member.post('/agent/execution', { action: 'complete', execution_uid: 'not a uid' })).body.code).toBe('invalid_uid');
    expect((await member.post('/agent/execution', { action: 'complete', execution_uid: '00000000-0000-4000-8000-000000000000' })).body.code).toBe('not_found');
    expect(await decisions(o, memberId)).toHaveLength(1);
    // a principal the policy does not match still hears the state guard
    expect((await o.post('/agent/execution', again)).body.code).toBe('invalid_transition');
  });

  it('require_approval answers before the state guard; an allow lets the guard answer and writes nothing', async () => {
    const { o, admin, member, memberId } = await org();
    const exec = await finishedExecution(o);
    const again = { action: 'complete', execution_uid: exec };
    const p = (await o.post('/v1/governance/policies', { name: 'executions need a second pair of eyes', effect: 'require_approval', status: 'published', match: { principals: ['role:member'], routes: ['POST /agent/execution#complete'] } })).body;
    const asked = await member.post('/agent/execution', again);
    expect(asked.status).toBe(403);
    expect(asked.body).toMatchObject({ code: 'approval_required', policy_uid: p.uid });
    const approvalUid = asked.body.approval_uid;
    const approval = (await o.get(`/node/${approvalUid}`)).body;
    expect(approval.props).toMatchObject({ status: 'pending', target_type: 'request', target_uid: exec });
    // the same request again names the same approval
    expect((await member.post('/agent/execution', again)).body.approval_uid).toBe(approvalUid);

    expect((await admin.post('/agent/governance', { action: 'resolve_approval', approval_uid: approvalUid, approved: true })).status).toBe(200);
    // approved: the state guard now answers, and the approval is not used up by a request that wrote nothing
    const replay = await member.post('/agent/execution', again, { headers: { 'x-approval-uid': approvalUid } });
    expect(replay.body.code).toBe('invalid_transition');
    expect((await o.get(`/v1/governance/audit?kind=approval_consumed&target_uid=${approvalUid}`)).body.items).toEqual([]);
    const mine = await decisions(o, memberId);
    // one decision per attempt, both naming the one approval; none for the approved replay the guard refused
    expect(mine.map((d: { decision: { effect: string } }) => d.decision.effect)).toEqual(['require_approval', 'require_approval']);
    expect(mine.map((d: { target_uids: string[] }) => d.target_uids)).toEqual([[exec], [exec]]);
  });

  it('a shadow policy warns before the guard; a caller without write access to a spaced node hears 403 forbidden, with no decision', async () => {
    const { o, member, memberId } = await org();
    const space = (await o.post('/node', { label: 'Ops', node_type: 'Space', props: { default_classification: 'internal' } })).body.uid;
    const uid = (await o.post('/agent/execution', { action: 'start', label: 'spaced run', space_uid: space })).body.uid;
    expect((await o.post('/agent/execution', { action: 'complete', execution_uid: uid })).status).toBe(200);
    await o.post('/v1/governance/policies', { name: 'watch executions', effect: 'deny', status: 'shadow', match: { node_types: ['Execution'] } });
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${memberId}`, access: 'read' })).status).toBe(201);
    const r = await member.post('/agent/execution', { action: 'complete', execution_uid: uid });
    expect([r.status, r.body.code]).toEqual([403, 'forbidden']);
    expect(await decisions(o, memberId)).toEqual([]);
    // with write access: the shadow policy is reported, the guard answers
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${memberId}`, access: 'write' })).status).toBe(200);
    const w = await member.post('/agent/execution', { action: 'complete', execution_uid: uid });
    expect(w.body.code).toBe('invalid_transition');
    expect(w.headers.get('warning')).toMatch(/^299 - "shadow policy .* would deny"$/);
  });

  async function jobDone(a: Api, id: string) {
    return eventually(async () => {
      const j = (await a.get(`/jobs/${id}`)).body;
      return ['completed', 'failed'].includes(j.status) ? j : null;
    }, { what: `job ${id} finished` });
  }

  const TEXT = 'Ada Lovelace met Charles Babbage in London. Ada Lovelace wrote the first program.';

  it('the units an ingestion job commits are judged as the request that queued it', async () => {
    const { o, member, memberId } = await org();
    const deny = (await o.post('/v1/governance/policies', { name: 'no people from members', effect: 'deny', status: 'published', match: { principals: ['role:member'], node_types: ['Person'] } })).body;
    const queued = await member.post('/ingest/document', { content: TEXT, title: 'notes' });
    expect(queued.status).toBe(202); // the request itself writes a Document, which the policy allows
    await jobDone(member, queued.body.job_id);
    expect((await o.get('/nodes?node_type=Person')).body.items).toEqual([]);
    const refused = (await decisions(o, memberId)).filter((d: { decision: { effect: string } }) => d.decision.effect === 'deny');
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]).toMatchObject({ method: 'POST', route: '/ingest/document', decision: { policy_uids: [deny.uid], enforced: true } });
    expect(refused[0].request_id).toBe(`job:${queued.body.job_id}`);

    // the owner's ingestion of the same text is not refused
    const mine = await o.post('/ingest/document', { content: TEXT, title: 'owner notes', force_reingest: true });
    expect((await jobDone(o, mine.body.job_id)).status).toBe('completed');
    expect((await o.get('/nodes?node_type=Person')).body.items.length).toBeGreaterThan(0);
  });

  it('an approved request covers the job it queued; without approval a unit cannot be approved and is refused', async () => {
    const { o, admin, member, memberId } = await org();
    await o.post('/v1/governance/policies', { name: 'member ingestion is reviewed', effect: 'require_approval', status: 'published', match: { principals: ['role:member'], routes: ['POST /ingest/document'] } });
    const body = { content: TEXT, title: 'reviewed notes' };
    const asked = await member.post('/ingest/document', body);
    expect(asked.body.code).toBe('approval_required');
    await admin.post('/agent/governance', { action: 'resolve_approval', approval_uid: asked.body.approval_uid, approved: true });
    const queued = await member.post('/ingest/document', body, { headers: { 'x-approval-uid': asked.body.approval_uid } });
    expect(queued.status).toBe(202);
    expect((await jobDone(member, queued.body.job_id)).status).toBe('completed');
    expect((await o.get('/nodes?node_type=Person')).body.items.length).toBeGreaterThan(0);
    const jobDecisions = (await decisions(o, memberId)).filter((d: { request_id: string }) => d.request_id === `job:${queued.body.job_id}`);
    expect(jobDecisions.length).toBeGreaterThan(0);
    for (const d of jobDecisions) expect(d.decision).toMatchObject({ effect: 'allow', reason: 'approved' });

    // a require_approval that only the job's writes meet: nobody can replay a unit, so it is refused
    const { o: o2, member: m2, memberId: m2Id } = await org();
    await o2.post('/v1/governance/policies', { name: 'people need review', effect: 'require_approval', status: 'published', match: { principals: ['role:member'], node_types: ['Person'] } });
    const q2 = await m2.post('/ingest/document', { content: TEXT, title: 'unreviewed' });
    expect(q2.status).toBe(202);
    await jobDone(m2, q2.body.job_id);
    expect((await o2.get('/nodes?node_type=Person')).body.items).toEqual([]);
    const refused = (await decisions(o2, m2Id)).filter((d: { decision: { effect: string } }) => d.decision.effect === 'require_approval');
    expect(refused.length).toBeGreaterThan(0);
    expect((await o2.get('/nodes?node_type=Approval')).body.items).toEqual([]);
  });

  it('the node a create would write is judged before its state guard: its type, layer and Space', async () => {
    const { o, admin, member, memberId } = await org();
    const pump = (await o.post('/node', { label: 'Pump 7', node_type: 'Entity' })).body.uid;
    const series = { action: 'create', label: 'Pump 7 pressure', entity_uid: pump, props: { metric: 'pressure' } };
    expect((await o.post('/reality/series', series)).status).toBe(201);
    // a second Series for the same entity and metric is the state guard's 409
    expect((await member.post('/reality/series', series)).body.code).toBe('duplicate');

    // a policy on the created node's type answers first; only its decision is written
    const deny = (await o.post('/v1/governance/policies', { name: 'members do not start series', effect: 'deny', status: 'published', match: { principals: ['role:member'], node_types: ['Series'] } })).body;
    const denied = await member.post('/reality/series', series);
    expect([denied.status, denied.body.code, denied.body.policy_uid]).toEqual([403, 'policy_denied', deny.uid]);
    const recorded = await decisions(o, memberId);
    expect(recorded).toHaveLength(1);
    expect(recorded[0].decision).toMatchObject({ effect: 'deny', enforced: true, policy_uids: [deny.uid] });
    expect(recorded[0].target_uids).toContain(pump);
    // an allowed principal still hears the guard
    expect((await o.post('/reality/series', series)).body.code).toBe('duplicate');
    expect((await o.patch(`/v1/governance/policies/${deny.uid}`, { status: 'rejected' })).status).toBe(200);

    // require_approval on the layer and Space the new node would have: asked before the guard
    const space = (await o.post('/node', { label: 'Plant', node_type: 'Space' })).body.uid;
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${memberId}`, access: 'write' })).status).toBe(201);
    const spaced = { ...series, space_uid: space };
    expect((await o.post('/reality/series', { ...spaced, entity_uid: pump, label: 'Pump 7 pressure (plant)', props: { metric: 'pressure_plant' } })).status).toBe(201);
    const again = { ...spaced, label: 'Pump 7 pressure (plant)', props: { metric: 'pressure_plant' } };
    expect((await member.post('/reality/series', again)).body.code).toBe('duplicate');
    const review = (await o.post('/v1/governance/policies', { name: 'plant readings are reviewed', effect: 'require_approval', status: 'published', match: { layers: ['reality'], spaces: [space] } })).body;
    const asked = await member.post('/reality/series', again);
    expect([asked.status, asked.body.code, asked.body.policy_uid]).toEqual([403, 'approval_required', review.uid]);
    const approval = (await o.get(`/node/${asked.body.approval_uid}`)).body;
    expect(approval.props).toMatchObject({ status: 'pending', target_type: 'request', target_uid: pump });
    // approved, the replay meets the guard: nothing is written and the approval is not used up
    expect((await admin.post('/agent/governance', { action: 'resolve_approval', approval_uid: asked.body.approval_uid, approved: true })).status).toBe(200);
    expect((await member.post('/reality/series', again, { headers: { 'x-approval-uid': asked.body.approval_uid } })).body.code).toBe('duplicate');
    expect((await o.get('/nodes?node_type=Series&limit=100')).body.items).toHaveLength(2);
    // the same create outside the Space is not the policy's
    expect((await member.post('/reality/series', { ...series })).body.code).toBe('duplicate');
    // the Space rule judges that node too: a write grant below the Space's default classification is 403, before the guard
    expect((await o.post(`/v1/spaces/${space}/grants`, { principal_uid: `user:${memberId}`, access: 'write', classification_ceiling: 'public' })).status).toBe(200);
    expect((await o.patch(`/v1/governance/policies/${review.uid}`, { status: 'rejected' })).status).toBe(200);
    const flow = { ...spaced, label: 'Pump 7 flow', props: { metric: 'flow' } };
    const ownFlow = await o.post('/reality/series', { ...flow, classification: 'public' });
    expect([ownFlow.status, ownFlow.body.code, ownFlow.body.error]).toEqual([201, undefined, undefined]);
    expect((await member.get(`/nodes?node_type=Series&limit=100`)).body.items.map((n: { label: string }) => n.label)).toContain('Pump 7 flow');
    const before = (await decisions(o, memberId)).length;
    // the member sees the public Series (a duplicate), but its own would be `internal`, the Space's default
    const above = await member.post('/reality/series', flow);
    expect([above.status, above.body.code]).toEqual([403, 'forbidden']);
    expect(await decisions(o, memberId)).toHaveLength(before);
  });
});
