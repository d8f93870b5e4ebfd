import { AGENT_EXECUTION } from './agent-execution';
import { AGENT_GOVERNANCE } from './agent-governance';
import { AGENT_PLAN } from './agent-plan';
import { createdOf, edgesOf, failure, given, givenNode, InMemoryView, testContext, when } from './testing/in-memory-view';

describe('/agent/plan', () => {
  it('create_task links goal, related nodes, dependencies and assignee', async () => {
    const view = new InMemoryView();
    const goal = givenNode(view, 'Goal', 'g');
    const dep = givenNode(view, 'Task', 'before');
    const agent = givenNode(view, 'Agent', 'bot');
    const other = givenNode(view, 'Claim', 'c');
    const ctx = testContext({ agent_id: 'planner' });
    const d = await when(AGENT_PLAN, { action: 'create_task', goal_uid: goal.uid, related_uids: [other.uid], depends_on_uids: [dep.uid], assigned_to_uid: agent.uid }, view, ctx);
    const t = createdOf(d)[0];
    expect(t).toMatchObject({ label: 'Task', props: { description: 'Task', status: 'pending', created_by: 'planner', parent_goal_uid: goal.uid, depends_on_task_uids: [dep.uid], assigned_to: agent.uid } });
    expect(edgesOf(d).map((e) => [e.edge_type, e.to_uid])).toEqual([
      ['Targets', goal.uid],
      ['Targets', other.uid],
      ['DependsOn', dep.uid],
      ['AssignedTo', agent.uid],
    ]);
    expect(edgesOf(d, 'AssignedTo')[0].props.assigned_at).toBe(ctx.now);
  });

  it('create_plan, add_step ×2 with dependencies, get_plan', async () => {
    const view = new InMemoryView();
    const ctx = testContext();
    const task = givenNode(view, 'Task', 't');
    const plan = createdOf(await given(AGENT_PLAN, { action: 'create_plan', task_uid: task.uid }, view, ctx))[0];
    expect(plan.props).toMatchObject({ description: 'Plan', status: 'pending', proposed_at: ctx.now, step_count: 0, task_uid: task.uid });
    const s1 = await given(AGENT_PLAN, { action: 'add_step', plan_uid: plan.uid, label: 'one' }, view, ctx);
    const step1 = createdOf(s1)[0];
    const s2 = await given(AGENT_PLAN, { action: 'add_step', plan_uid: plan.uid, depends_on_uids: [step1.uid] }, view, ctx);
    const step2 = createdOf(s2)[0];
    expect(s2.body).toMatchObject({ order: 2 });
    expect(step2).toMatchObject({ label: 'Step', props: { plan_uid: plan.uid, status: 'pending', order: 2 } });
    expect(s2.changes).toContainEqual(expect.objectContaining({ type: 'NodeTouched', data: { uid: plan.uid, props: { step_count: 2 }, updated_at: ctx.now } }));
    expect(edgesOf(s2).map((e) => [e.edge_type, e.from_uid, e.to_uid])).toEqual([
      ['HasStep', plan.uid, step2.uid],
      ['DependsOn', step2.uid, step1.uid],
      ['Follows', step1.uid, step2.uid],
    ]);
    const got = await when(AGENT_PLAN, { action: 'get_plan', plan_uid: plan.uid }, view, ctx);
    const body = got.body as { plan: { uid: string }; steps: { uid: string }[]; edges: { edge_type: string }[] };
    expect(body.plan.uid).toBe(plan.uid);
    expect(body.steps.map((s) => s.uid)).toEqual([step1.uid, step2.uid]);
    expect(body.edges.map((e) => e.edge_type).sort()).toEqual(['DependsOn', 'Follows', 'HasStep', 'HasStep']);
  });

  it('update_status: Task vocabulary, plan approval stamps, previous_status', async () => {
    const view = new InMemoryView();
    const task = givenNode(view, 'Task', 't', { status: 'pending' });
    const d = await given(AGENT_PLAN, { action: 'update_status', target_uid: task.uid, status: 'done', props: { result_summary: 'ok' } }, view, testContext());
    expect(d.body).toMatchObject({ status: 'done', previous_status: 'pending', version: 2 });
    expect((await view.node(task.uid))!.props.result_summary).toBe('ok');
    expect(await failure(when(AGENT_PLAN, { action: 'update_status', target_uid: task.uid, status: 'finished' }, view, testContext()))).toMatchObject({
      code: 'invalid_field',
      field: 'status',
    });
    const plan = givenNode(view, 'Plan', 'p');
    const ctx = testContext();
    await given(AGENT_PLAN, { action: 'update_status', target_uid: plan.uid, status: 'approved' }, view, ctx);
    expect((await view.node(plan.uid))!.props).toMatchObject({ status: 'approved', approved_at: ctx.now, approved_by: 'user-1' });
    const goal = givenNode(view, 'Goal', 'g');
    expect(await failure(when(AGENT_PLAN, { action: 'update_status', target_uid: goal.uid, status: 'x' }, view, testContext()))).toMatchObject({
      code: 'wrong_node_type',
      expected: ['Task', 'Plan', 'PlanStep'],
    });
  });
});

describe('/agent/governance', () => {
  it('create_policy: governed nodes point at it', async () => {
    const view = new InMemoryView();
    const agent = givenNode(view, 'Agent', 'a');
    const d = await when(AGENT_GOVERNANCE, { action: 'create_policy', label: 'No prod', governed_uids: [agent.uid] }, view, testContext());
    const p = createdOf(d)[0];
    expect(p.props).toMatchObject({ name: 'No prod', active: true, priority: 0 });
    expect(edgesOf(d, 'GovernedByPolicy')[0]).toMatchObject({ from_uid: agent.uid, to_uid: p.uid });
  });

  it('set_budget upserts by (governed_uid, budget_type) and recomputes remaining', async () => {
    const view = new InMemoryView();
    const agent = givenNode(view, 'Agent', 'a');
    const first = await given(AGENT_GOVERNANCE, { action: 'set_budget', governed_uid: agent.uid, props: { budget_type: 'token', consumed: 30 } }, view, testContext());
    expect(first.status).toBe(201);
    const b = createdOf(first)[0];
    expect(b).toMatchObject({ label: 'Safety Budget', props: { limit: 100, consumed: 30, remaining: 70, scope_uid: agent.uid } });
    expect(edgesOf(first, 'BudgetFor')[0]).toMatchObject({ from_uid: b.uid, to_uid: agent.uid });
    const second = await given(AGENT_GOVERNANCE, { action: 'set_budget', governed_uid: agent.uid, props: { budget_type: 'token', limit: 500, remaining: 1 } }, view, testContext());
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ uid: b.uid, created: false, version: 2, edges_created: 0 });
    expect((await view.node(b.uid))!.props).toMatchObject({ limit: 500, consumed: 30, remaining: 470 });
    const other = await when(AGENT_GOVERNANCE, { action: 'set_budget', governed_uid: agent.uid, props: { budget_type: 'cost' } }, view, testContext());
    expect(other.status).toBe(201);
  });

  it('request_approval then resolve_approval once', async () => {
    const view = new InMemoryView();
    const plan = givenNode(view, 'Plan', 'deploy');
    const ctx = testContext();
    const req = await given(AGENT_GOVERNANCE, { action: 'request_approval', governed_uid: plan.uid }, view, ctx);
    const a = createdOf(req)[0];
    expect(a).toMatchObject({ label: 'Approval Request', props: { status: 'pending', requested_at: ctx.now, target_uid: plan.uid, target_type: 'Plan' } });
    expect(edgesOf(req, 'RequiresApproval')[0]).toMatchObject({ from_uid: plan.uid, to_uid: a.uid });
    expect(req.body).toMatchObject({ status: 'pending' });
    const pending = await when(AGENT_GOVERNANCE, { action: 'get_pending' }, view, ctx);
    expect((pending.body as { uid: string }[]).map((n) => n.uid)).toEqual([a.uid]);
    const ok = await given(AGENT_GOVERNANCE, { action: 'resolve_approval', approval_uid: a.uid, approved: false, reason: 'risky', props: { conditions: 'never' } }, view, ctx);
    expect(ok.body).toMatchObject({ status: 'denied', approved: false, version: 2 });
    expect((await view.node(a.uid))!.props).toMatchObject({ decided_by: 'user-1', reason: 'risky', conditions: 'never', decided_at: ctx.now });
    expect(await failure(when(AGENT_GOVERNANCE, { action: 'resolve_approval', approval_uid: a.uid, approved: true }, view, ctx))).toMatchObject({
      status: 409,
      code: 'invalid_transition',
      from_status: 'denied',
    });
    expect(await failure(when(AGENT_GOVERNANCE, { action: 'resolve_approval', approval_uid: a.uid }, view, ctx))).toMatchObject({ code: 'missing_field', field: 'approved' });
  });

  it('request_approval without a target: target_uid and target_type null, no RequiresApproval edge', async () => {
    const view = new InMemoryView();
    const req = await given(AGENT_GOVERNANCE, { action: 'request_approval', label: 'Spend 5 EUR' }, view, testContext());
    expect(createdOf(req)[0].props).toMatchObject({ status: 'pending', target_uid: null, target_type: null });
    expect(edgesOf(req, 'RequiresApproval')).toEqual([]);
  });
});

describe('/agent/execution', () => {
  it('start → complete with produced nodes; a second end is a 409', async () => {
    const view = new InMemoryView();
    const step = givenNode(view, 'PlanStep', 's', { order: 1 });
    const agent = givenNode(view, 'Agent', 'bot');
    const out = givenNode(view, 'Document', 'report');
    const ctx = testContext();
    const st = await given(AGENT_EXECUTION, { action: 'start', plan_uid: step.uid, executor_uid: agent.uid }, view, ctx);
    const ex = createdOf(st)[0];
    expect(ex).toMatchObject({ label: 'Execution', props: { status: 'running', started_at: ctx.now, agent_uid: agent.uid, plan_step_uid: step.uid } });
    expect(edgesOf(st).map((e) => e.edge_type)).toEqual(['ExecutionOf', 'ExecutedBy']);
    const done = await given(AGENT_EXECUTION, { action: 'complete', execution_uid: ex.uid, produces_node_uid: out.uid, props: { output_snapshot: { ok: true } } }, view, ctx);
    expect(done.body).toMatchObject({ status: 'completed', version: 2, edges_created: 1 });
    expect(edgesOf(done, 'ProducesNode')[0]).toMatchObject({ from_uid: ex.uid, to_uid: out.uid });
    expect((await view.node(ex.uid))!.props).toMatchObject({ completed_at: ctx.now, output_snapshot: { ok: true } });
    expect(await failure(when(AGENT_EXECUTION, { action: 'fail', execution_uid: ex.uid, error: 'late' }, view, ctx))).toMatchObject({
      status: 409,
      code: 'invalid_transition',
      from_status: 'completed',
    });
  });

  it('fail records the error', async () => {
    const view = new InMemoryView();
    const ex = createdOf(await given(AGENT_EXECUTION, { action: 'start' }, view, testContext()))[0];
    const f = await given(AGENT_EXECUTION, { action: 'fail', execution_uid: ex.uid, error: 'boom' }, view, testContext());
    expect(f.body).toMatchObject({ status: 'failed' });
    expect((await view.node(ex.uid))!.props.error).toBe('boom');
  });

  it('register_agent is an upsert by case-insensitive name', async () => {
    const view = new InMemoryView();
    const first = await given(AGENT_EXECUTION, { action: 'register_agent', label: 'Scout' }, view, testContext());
    expect(first).toMatchObject({ status: 201, body: { name: 'Scout', created: true } });
    expect(createdOf(first)[0].props).toMatchObject({ name: 'Scout', status: 'active' });
    const again = await when(AGENT_EXECUTION, { action: 'register_agent', label: 'scout' }, view, testContext());
    expect(again).toMatchObject({ status: 200, changes: [], body: { uid: createdOf(first)[0].uid, name: 'Scout', created: false } });
  });

  it('get_executions filters by plan and status, newest start first', async () => {
    const view = new InMemoryView();
    const plan = givenNode(view, 'Plan', 'p');
    const ctx = testContext();
    const a = createdOf(await given(AGENT_EXECUTION, { action: 'start', plan_uid: plan.uid }, view, ctx))[0];
    ctx.tick(5);
    const b = createdOf(await given(AGENT_EXECUTION, { action: 'start' }, view, ctx))[0];
    const all = await when(AGENT_EXECUTION, { action: 'get_executions' }, view, ctx);
    expect((all.body as { uid: string }[]).map((n) => n.uid)).toEqual([b.uid, a.uid]);
    const ofPlan = await when(AGENT_EXECUTION, { action: 'get_executions', filter_plan_uid: plan.uid }, view, ctx);
    expect((ofPlan.body as { uid: string }[]).map((n) => n.uid)).toEqual([a.uid]);
    expect((await when(AGENT_EXECUTION, { action: 'get_executions', status: 'failed' }, view, ctx)).body).toEqual([]);
  });
});
