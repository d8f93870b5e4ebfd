import { ACTION_PROCEDURE } from './action-procedure';
import { ACTION_RISK } from './action-risk';
import { ACTION_SKILL } from './action-skill';
import { createdOf, edgesOf, failure, given, givenEdge, givenNode, InMemoryView, testContext, when } from './testing/in-memory-view';

describe('/action/procedure', () => {
  it('create_flow names the flow and links its goal', async () => {
    const view = new InMemoryView();
    const goal = givenNode(view, 'Goal', 'g');
    const d = await when(ACTION_PROCEDURE, { action: 'create_flow', label: 'Deploy', goal_uid: goal.uid }, view, testContext());
    expect(createdOf(d)[0].props).toMatchObject({ name: 'Deploy', step_count: 0 });
    expect(edgesOf(d, 'RelevantTo')[0].to_uid).toBe(goal.uid);
  });

  it('add_step orders steps, chains them, uses affordances and refreshes step_count', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const flow = createdOf(await given(ACTION_PROCEDURE, { action: 'create_flow', label: 'F' }, view, ctx))[0];
    const aff = createdOf(await given(ACTION_PROCEDURE, { action: 'add_affordance', label: 'click deploy' }, view, ctx))[0];
    const s1 = await given(ACTION_PROCEDURE, { action: 'add_step', label: 'build', flow_uid: flow.uid }, view, ctx);
    expect(s1.body).toMatchObject({ order: 1 });
    const step1 = createdOf(s1)[0];
    const s2 = await given(ACTION_PROCEDURE, { action: 'add_step', label: 'ship', flow_uid: flow.uid, previous_step_uid: step1.uid, uses_affordance_uids: [aff.uid] }, view, ctx);
    const step2 = createdOf(s2)[0];
    expect(s2.body).toMatchObject({ order: 2, edges_created: 4 });
    expect(step2.props).toMatchObject({ order: 2, description: 'ship', affordance_uid: aff.uid });
    expect(edgesOf(s2, 'ComposedOf')[0]).toMatchObject({ from_uid: flow.uid, to_uid: step2.uid, props: { order: 2 } });
    expect(edgesOf(s2, 'DependsOn')[0]).toMatchObject({ from_uid: step2.uid, to_uid: step1.uid });
    expect(edgesOf(s2, 'Follows')[0]).toMatchObject({ from_uid: step1.uid, to_uid: step2.uid });
    expect(edgesOf(s2, 'StepUses')[0]).toMatchObject({ from_uid: step2.uid, to_uid: aff.uid });
    expect(s2.changes).toContainEqual(expect.objectContaining({ type: 'NodeTouched', data: { uid: flow.uid, props: { step_count: 2 }, updated_at: ctx.now } }));
    const s9 = await when(ACTION_PROCEDURE, { action: 'add_step', label: 'late', flow_uid: flow.uid, props: { order: 9 } }, view, ctx);
    expect(s9.body).toMatchObject({ order: 9 });
  });

  it('add_step: previous_step_uid must be a FlowStep', async () => {
    const view = new InMemoryView();
    const flow = givenNode(view, 'Flow', 'f');
    expect(await failure(when(ACTION_PROCEDURE, { action: 'add_step', label: 's', flow_uid: flow.uid, previous_step_uid: flow.uid }, view, testContext()))).toMatchObject({
      code: 'wrong_node_type',
      field: 'previous_step_uid',
    });
  });

  it('add_affordance records its source; add_control hangs off its flow', async () => {
    const view = new InMemoryView();
    const src = givenNode(view, 'Source', 'page');
    const flow = givenNode(view, 'Flow', 'f');
    const a = await when(ACTION_PROCEDURE, { action: 'add_affordance', label: 'submit', source_uid: src.uid }, view, testContext());
    expect(createdOf(a)[0].props).toMatchObject({ action_name: 'submit', source_uid: src.uid });
    expect(edgesOf(a, 'AvailableOn')[0].to_uid).toBe(src.uid);
    const c = await when(ACTION_PROCEDURE, { action: 'add_control', label: 'if green', flow_uid: flow.uid }, view, testContext());
    expect(createdOf(c)[0].props).toMatchObject({ control_type: 'conditional', label: 'if green' });
    expect(edgesOf(c, 'Controls')[0]).toMatchObject({ from_uid: flow.uid });
  });
});

describe('/action/risk', () => {
  it('assess defaults its label and requires_approval, and links the assessed node', async () => {
    const view = new InMemoryView();
    const plan = givenNode(view, 'Plan', 'p');
    const d = await when(ACTION_RISK, { action: 'assess', assessed_uid: plan.uid, props: { severity: 'high' } }, view, testContext());
    const n = createdOf(d)[0];
    expect(n).toMatchObject({ label: 'Risk Assessment', props: { target_uid: plan.uid, requires_approval: true, severity: 'high' } });
    expect(edgesOf(d, 'RiskAssessedBy')[0]).toMatchObject({ from_uid: plan.uid, to_uid: n.uid });
  });

  it('get_assessments filters by target_uid or a RiskAssessedBy edge, newest first', async () => {
    const view = new InMemoryView();
    const plan = givenNode(view, 'Plan', 'p');
    const byProp = givenNode(view, 'RiskAssessment', 'r1', { target_uid: plan.uid }, 10);
    const byEdge = givenNode(view, 'RiskAssessment', 'r2', {}, 20);
    givenEdge(view, plan, byEdge, 'RiskAssessedBy');
    givenNode(view, 'RiskAssessment', 'other', {}, 30);
    const r = await when(ACTION_RISK, { action: 'get_assessments', filter_uid: plan.uid }, view, testContext());
    expect((r.body as { uid: string }[]).map((n) => n.uid)).toEqual([byEdge.uid, byProp.uid]);
    expect(await failure(when(ACTION_RISK, { action: 'get_assessments', filter_uid: 'missing' }, view, testContext()))).toMatchObject({ status: 404, field: 'filter_uid' });
    expect((await when(ACTION_RISK, { action: 'get_assessments' }, view, testContext())).body).toHaveLength(3);
  });
});

describe('/action/skill', () => {
  async function proposed(view: InMemoryView) {
    const src = givenNode(view, 'Journal', 'notes');
    const d = await given(ACTION_SKILL, { action: 'propose', label: 'Rollback', source_uids: [src.uid], props: { steps: ['a', 'b'] } }, view, testContext({ agent_id: 'bot' }));
    return { skill: createdOf(d)[0], src, d };
  }

  it('propose: a candidate named after its label, derived from its sources', async () => {
    const view = new InMemoryView();
    const { skill, src, d } = await proposed(view);
    expect(skill.props).toMatchObject({ name: 'Rollback', status: 'candidate', proposed_by: 'bot', source_node_uids: [src.uid], steps: ['a', 'b'] });
    expect(edgesOf(d, 'DerivedFrom')[0]).toMatchObject({ from_uid: skill.uid, to_uid: src.uid });
    expect(d.body).toMatchObject({ status: 'candidate', node_type: 'Skill', layer: 'action' });
  });

  it('moves through the lifecycle: review → approve → deprecate with a successor', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const { skill } = await proposed(view);
    const r = await given(ACTION_SKILL, { action: 'review', skill_uid: skill.uid, notes: 'looks fine' }, view, ctx);
    expect(r.body).toMatchObject({ status: 'reviewed', from_status: 'candidate', version: 2 });
    expect(r.changes[0]).toMatchObject({ type: 'NodeUpdated', data: { reason: 'review' } });
    expect((await view.node(skill.uid))!.props).toMatchObject({ reviewed_by: 'user-1', reviewed_at: ctx.now, review_notes: 'looks fine' });
    const a = await given(ACTION_SKILL, { action: 'approve', skill_uid: skill.uid, reason: 'tested' }, view, ctx);
    expect(a.body).toMatchObject({ status: 'approved', from_status: 'reviewed', version: 3 });
    expect(a.changes[0]).toMatchObject({ data: { reason: 'approve: tested' } });

    const successor = givenNode(view, 'Skill', 'v2');
    view.nodesByUid.set(successor.uid, { ...successor, props: { ...successor.props, status: 'approved' } });
    const dep = await given(ACTION_SKILL, { action: 'deprecate', skill_uid: skill.uid, reason: 'old', superseded_by_uid: successor.uid }, view, ctx);
    expect(dep.body).toMatchObject({ status: 'deprecated', from_status: 'approved', edges_created: 1 });
    expect(edgesOf(dep, 'Supersedes')[0]).toMatchObject({ from_uid: successor.uid, to_uid: skill.uid });
    expect((await view.node(skill.uid))!.props).toMatchObject({ deprecated_reason: 'old', superseded_by_uid: successor.uid });

    const got = await when(ACTION_SKILL, { action: 'get', skill_uid: skill.uid }, view, ctx);
    expect(got.body).toMatchObject({ superseded_by: successor.uid, supersedes: [] });
    expect((got.body as { sources: { label: string }[] }).sources.map((s) => s.label)).toEqual(['notes']);
  });

  it('illegal moves are 409 invalid_transition with from_status and the allowed moves', async () => {
    const view = new InMemoryView();
    const { skill } = await proposed(view);
    expect(await failure(when(ACTION_SKILL, { action: 'approve', skill_uid: skill.uid }, view, testContext()))).toMatchObject({
      status: 409,
      code: 'invalid_transition',
      from_status: 'candidate',
      allowed: ['review', 'reject'],
    });
    await given(ACTION_SKILL, { action: 'reject', skill_uid: skill.uid, reason: 'unsafe' }, view, testContext());
    expect((await view.node(skill.uid))!.props.rejected_reason).toBe('unsafe');
    expect(await failure(when(ACTION_SKILL, { action: 'review', skill_uid: skill.uid }, view, testContext()))).toMatchObject({
      status: 409,
      from_status: 'rejected',
      allowed: [],
    });
  });

  it('reject needs a reason; skill_uid must be a Skill; a successor must be approved', async () => {
    const view = new InMemoryView();
    const { skill } = await proposed(view);
    expect(await failure(when(ACTION_SKILL, { action: 'reject', skill_uid: skill.uid }, view, testContext()))).toMatchObject({ code: 'missing_field', field: 'reason' });
    const goal = givenNode(view, 'Goal', 'g');
    expect(await failure(when(ACTION_SKILL, { action: 'review', skill_uid: goal.uid }, view, testContext()))).toMatchObject({ code: 'wrong_node_type' });
    await given(ACTION_SKILL, { action: 'review', skill_uid: skill.uid }, view, testContext());
    await given(ACTION_SKILL, { action: 'approve', skill_uid: skill.uid }, view, testContext());
    const candidate = givenNode(view, 'Skill', 'v2');
    expect(await failure(when(ACTION_SKILL, { action: 'deprecate', skill_uid: skill.uid, superseded_by_uid: candidate.uid }, view, testContext()))).toMatchObject({
      code: 'invalid_field',
      field: 'superseded_by_uid',
    });
  });

  it('list pages live skills by updated_at, filtered by status', async () => {
    const view = new InMemoryView();
    givenNode(view, 'Skill', 'a', {}, 10);
    const b = givenNode(view, 'Skill', 'b', {}, 20);
    view.nodesByUid.set(b.uid, { ...b, props: { ...b.props, status: 'approved' } });
    const all = await when(ACTION_SKILL, { action: 'list', limit: 1 }, view, testContext());
    expect(all.body).toMatchObject({ has_more: true, limit: 1, offset: 0 });
    const approved = await when(ACTION_SKILL, { action: 'list', status: ['approved'] }, view, testContext());
    expect((approved.body as { items: { uid: string }[] }).items.map((n) => n.uid)).toEqual([b.uid]);
    expect(await failure(when(ACTION_SKILL, { action: 'list', status: 'bogus' }, view, testContext()))).toMatchObject({ code: 'invalid_field' });
  });
});
