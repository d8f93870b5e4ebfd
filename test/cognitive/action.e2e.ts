import { call, CognitiveFixture, edgesFrom, edgesTo, graphSize, makeNode, node, startCognitive, twoSpaces } from './cognitive-fixture';

describe('POST /action/procedure', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const P = '/action/procedure';

  it('a flow with ordered steps, an affordance and a control; step_count is maintained without versions', async () => {
    const goal = await makeNode(f.w, 'Goal');
    const flow = await call(f.w, P, { action: 'create_flow', label: 'Release', goal_uid: goal }, 201);
    expect((await edgesFrom(f.w, flow.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['RelevantTo', goal]]);
    const page = await makeNode(f.w, 'Source', 'console');
    const aff = await call(f.w, P, { action: 'add_affordance', label: 'press deploy', source_uid: page }, 201);
    expect((await node(f.w, aff.uid)).props).toMatchObject({ action_name: 'press deploy', source_uid: page });
    expect((await edgesFrom(f.w, aff.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['AvailableOn', page]]);
    const s1 = await call(f.w, P, { action: 'add_step', label: 'build', flow_uid: flow.uid }, 201);
    const s2 = await call(f.w, P, { action: 'add_step', label: 'deploy', flow_uid: flow.uid, previous_step_uid: s1.uid, uses_affordance_uids: [aff.uid] }, 201);
    expect([s1.order, s2.order]).toEqual([1, 2]);
    expect((await node(f.w, s2.uid)).props).toMatchObject({ order: 2, description: 'deploy', affordance_uid: aff.uid });
    expect((await edgesFrom(f.w, s2.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['DependsOn', s1.uid],
        ['StepUses', aff.uid],
      ].sort(),
    );
    expect((await edgesFrom(f.w, s1.uid)).map((e) => [e.edge_type, e.to_uid])).toEqual([['Follows', s2.uid]]);
    const composed = (await edgesFrom(f.w, flow.uid)).filter((e) => e.edge_type === 'ComposedOf');
    expect(composed.map((e) => [e.to_uid, e.props.order])).toEqual([
      [s1.uid, 1],
      [s2.uid, 2],
    ]);
    const fl = await node(f.w, flow.uid);
    expect(fl.props).toMatchObject({ name: 'Release', step_count: 2 });
    expect(fl.version).toBe(1);
    expect(fl.updated_at).toBeGreaterThan(fl.created_at);
    const ctl = await call(f.w, P, { action: 'add_control', label: 'if green', flow_uid: flow.uid }, 201);
    expect((await node(f.w, ctl.uid)).props).toMatchObject({ control_type: 'conditional', label: 'if green' });
    expect((await edgesTo(f.w, ctl.uid)).map((e) => [e.edge_type, e.from_uid])).toEqual([['Controls', flow.uid]]);
  });

  it('a caller limited to one Space counts the steps it cannot see (flow and plan)', async () => {
    const { owner, a, b, inA } = await twoSpaces(f, ['Shop A', 'Shop B']);
    const flow = await call(owner, P, { action: 'create_flow', label: 'release', space_uid: a }, 201);
    const plan = await call(owner, '/agent/plan', { action: 'create_plan', space_uid: a }, 201);
    for (const label of ['b1', 'b2']) {
      await call(owner, P, { action: 'add_step', label, flow_uid: flow.uid, space_uid: b }, 201);
      await call(owner, '/agent/plan', { action: 'add_step', label, plan_uid: plan.uid, space_uid: b }, 201);
    }
    expect(await call(inA, P, { action: 'add_step', label: 'a1', flow_uid: flow.uid }, 201)).toMatchObject({ order: 3 });
    expect(await call(inA, '/agent/plan', { action: 'add_step', label: 'a1', plan_uid: plan.uid }, 201)).toMatchObject({ order: 3 });
    expect((await node(owner, flow.uid)).props.step_count).toBe(3);
    expect((await node(owner, plan.uid)).props.step_count).toBe(3);
  });

  it('add_step into a Goal is a wrong_node_type and writes nothing', async () => {
    const goal = await makeNode(f.w, 'Goal');
    const before = await graphSize(f.w);
    const r = await f.w.post(P, { action: 'add_step', label: 's', flow_uid: goal });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'wrong_node_type', field: 'flow_uid', expected: ['Flow'] });
    expect(await graphSize(f.w)).toEqual(before);
  });
});

describe('POST /action/risk', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());

  it('assess and get_assessments', async () => {
    const plan = await makeNode(f.w, 'Plan', 'migrate');
    const r = await call(f.w, '/action/risk', { action: 'assess', assessed_uid: plan, props: { severity: 'high', likelihood: 0.3 } }, 201);
    expect(r).toMatchObject({ label: 'Risk Assessment', node_type: 'RiskAssessment', layer: 'action' });
    expect((await node(f.w, r.uid)).props).toMatchObject({ target_uid: plan, requires_approval: true, severity: 'high' });
    expect((await edgesFrom(f.w, plan)).map((e) => [e.edge_type, e.to_uid])).toEqual([['RiskAssessedBy', r.uid]]);
    await call(f.w, '/action/risk', { action: 'assess', label: 'general' }, 201);
    const forPlan = await call(f.ro, '/action/risk', { action: 'get_assessments', filter_uid: plan }, 200);
    expect(forPlan.map((n: any) => n.uid)).toEqual([r.uid]);
    expect(await call(f.w, '/action/risk', { action: 'get_assessments' }, 200)).toHaveLength(2);
    expect((await f.w.post('/action/risk', { action: 'get_assessments', filter_uid: 'nothing-here' })).status).toBe(404);
    expect((await f.w.post('/action/risk', { action: 'assess', props: { likelihood: 3 } })).body.code).toBe('invalid_props');
  });
});

describe('POST /action/skill', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const K = '/action/skill';

  it('propose → review → approve → deprecate (with successor); history carries the reasons', async () => {
    const notes = await makeNode(f.w, 'Journal', 'incident notes');
    const p = await call(f.w, K, { action: 'propose', label: 'Rollback', source_uids: [notes], agent_id: 'sre-bot', props: { steps: ['revert', 'verify'] } }, 201);
    expect(p).toMatchObject({ status: 'candidate', node_type: 'Skill', layer: 'action' });
    expect((await node(f.w, p.uid)).props).toMatchObject({ name: 'Rollback', status: 'candidate', proposed_by: 'sre-bot', source_node_uids: [notes] });
    expect(await call(f.w, K, { action: 'review', skill_uid: p.uid, notes: 'ok' }, 200)).toMatchObject({ status: 'reviewed', from_status: 'candidate', version: 2 });
    expect(await call(f.w, K, { action: 'approve', skill_uid: p.uid, reason: 'drill passed' }, 200)).toMatchObject({ status: 'approved', from_status: 'reviewed', version: 3 });
    const next = await call(f.w, K, { action: 'propose', label: 'Rollback v2', supersedes_uid: p.uid }, 201);
    await call(f.w, K, { action: 'review', skill_uid: next.uid }, 200);
    await call(f.w, K, { action: 'approve', skill_uid: next.uid }, 200);
    const dep = await call(f.w, K, { action: 'deprecate', skill_uid: p.uid, reason: 'v2', superseded_by_uid: next.uid }, 200);
    expect(dep).toMatchObject({ status: 'deprecated', from_status: 'approved', edges_created: 1 });
    const got = await call(f.ro, K, { action: 'get', skill_uid: p.uid }, 200);
    expect(got.superseded_by).toBe(next.uid);
    expect(got.sources.map((n: any) => n.uid)).toEqual([notes]);
    expect((await call(f.w, K, { action: 'get', skill_uid: next.uid }, 200)).supersedes).toEqual([p.uid]);
    const history = (await f.w.get(`/node/${p.uid}/history`)).body;
    expect(history.map((v: any) => v.change_reason)).toEqual([null, 'review', 'approve: drill passed', 'deprecate: v2']);
    const list = await call(f.ro, K, { action: 'list', status: 'approved' }, 200);
    expect(list.items.map((n: any) => n.uid)).toEqual([next.uid]);
  });

  it('illegal moves are 409 invalid_transition; status cannot be patched around the lifecycle', async () => {
    const p = await call(f.w, K, { action: 'propose', label: 'Risky' }, 201);
    const r = await f.w.post(K, { action: 'approve', skill_uid: p.uid });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'invalid_transition', from_status: 'candidate', allowed: ['review', 'reject'] });
    expect((await f.w.post(K, { action: 'reject', skill_uid: p.uid })).body).toMatchObject({ code: 'missing_field', field: 'reason' });
    await call(f.w, K, { action: 'reject', skill_uid: p.uid, reason: 'unsafe' }, 200);
    expect((await f.w.post(K, { action: 'review', skill_uid: p.uid })).body).toMatchObject({ code: 'invalid_transition', from_status: 'rejected', allowed: [] });
    expect((await f.w.patch(`/node/${p.uid}`, { props: { status: 'approved' } })).status).toBe(409);
    expect((await f.w.post(K, { action: 'review', skill_uid: 'missing' })).status).toBe(404);
  });
});
