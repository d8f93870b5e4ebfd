import { api } from '../support/http';
import { call, CognitiveFixture, edgesFrom, edgesTo, graphSize, makeNode, node, startCognitive } from './cognitive-fixture';

describe('POST /agent/plan', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const P = '/agent/plan';

  it('tasks, a plan with ordered dependent steps, status updates, get_plan', async () => {
    const goal = await makeNode(f.w, 'Goal', 'launch');
    const agent = (await call(f.w, '/agent/execution', { action: 'register_agent', label: 'Worker' }, 201)).uid;
    const doc = await makeNode(f.w, 'Document', 'runbook');
    const t1 = await call(f.w, P, { action: 'create_task', label: 'prepare' }, 201);
    const t2 = await call(f.w, P, { action: 'create_task', label: 'go', goal_uid: goal, related_uids: [doc], depends_on_uids: [t1.uid], assigned_to_uid: agent, agent_id: 'lead' }, 201);
    expect((await node(f.w, t2.uid)).props).toMatchObject({ description: 'go', status: 'pending', created_by: 'lead', parent_goal_uid: goal, depends_on_task_uids: [t1.uid], assigned_to: agent });
    const out = await edgesFrom(f.w, t2.uid);
    expect(out.map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['AssignedTo', agent],
        ['DependsOn', t1.uid],
        ['Targets', goal],
        ['Targets', doc],
      ].sort(),
    );
    expect(out.find((e) => e.edge_type === 'AssignedTo')!.props.assigned_at).toEqual(expect.any(Number));

    const plan = await call(f.w, P, { action: 'create_plan', task_uid: t2.uid, goal_uid: goal, related_uids: [doc] }, 201);
    expect(plan).toMatchObject({ label: 'Plan' });
    expect((await edgesFrom(f.w, plan.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['PlannedBy', t2.uid],
        ['Targets', goal],
        ['Targets', doc],
      ].sort(),
    );
    const s1 = await call(f.w, P, { action: 'add_step', plan_uid: plan.uid, label: 'one' }, 201);
    const s2 = await call(f.w, P, { action: 'add_step', plan_uid: plan.uid, depends_on_uids: [s1.uid] }, 201);
    expect([s1.order, s2.order]).toEqual([1, 2]);
    const pl = await node(f.w, plan.uid);
    expect(pl.props).toMatchObject({ task_uid: t2.uid, step_count: 2, status: 'pending' });
    expect(pl.version).toBe(1);
    const got = await call(f.ro, P, { action: 'get_plan', plan_uid: plan.uid }, 200);
    expect(got.plan.uid).toBe(plan.uid);
    expect(got.steps.map((s: any) => [s.uid, s.props.order])).toEqual([
      [s1.uid, 1],
      [s2.uid, 2],
    ]);
    expect(got.edges.map((e: any) => e.edge_type).sort()).toEqual(['DependsOn', 'Follows', 'HasStep', 'HasStep']);

    const u = await call(f.w, P, { action: 'update_status', target_uid: t2.uid, status: 'done', props: { result_summary: 'shipped' } }, 200);
    expect(u).toMatchObject({ status: 'done', previous_status: 'pending', version: 2 });
    expect((await f.w.post(P, { action: 'update_status', target_uid: t2.uid, status: 'finished' })).body).toMatchObject({ code: 'invalid_field', field: 'status' });
    await call(f.w, P, { action: 'update_status', target_uid: plan.uid, status: 'approved' }, 200);
    expect((await node(f.w, plan.uid)).props).toMatchObject({ status: 'approved', approved_at: expect.any(Number), approved_by: expect.any(String) });
    const before = await graphSize(f.w);
    expect((await f.w.post(P, { action: 'update_status', target_uid: goal, status: 'done' })).body).toMatchObject({ code: 'wrong_node_type', expected: ['Task', 'Plan', 'PlanStep'] });
    expect(await graphSize(f.w)).toEqual(before);
  });
});

describe('POST /agent/governance', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const G = '/agent/governance';

  it('policy, budget upsert, approval request and single resolution; GET /approvals/pending agrees', async () => {
    const agent = await makeNode(f.w, 'Agent', 'bot');
    const pol = await call(f.w, G, { action: 'create_policy', label: 'No prod writes', governed_uids: [agent] }, 201);
    expect((await node(f.w, pol.uid)).props).toMatchObject({ name: 'No prod writes', active: true, priority: 0 });
    expect((await edgesFrom(f.w, agent)).map((e) => [e.edge_type, e.to_uid])).toEqual([['GovernedByPolicy', pol.uid]]);

    const b1 = await call(f.w, G, { action: 'set_budget', governed_uid: agent, props: { budget_type: 'api_call', consumed: 10 } }, 201);
    expect(b1.created).toBe(true);
    expect((await node(f.w, b1.uid)).props).toMatchObject({ limit: 100, consumed: 10, remaining: 90, scope_uid: agent });
    const b2 = await call(f.w, G, { action: 'set_budget', governed_uid: agent, props: { budget_type: 'api_call', limit: 20 } }, 200);
    expect(b2).toMatchObject({ uid: b1.uid, created: false, version: 2 });
    expect((await node(f.w, b1.uid)).props).toMatchObject({ limit: 20, consumed: 10, remaining: 10 });
    expect((await edgesFrom(f.w, b1.uid)).filter((e) => e.edge_type === 'BudgetFor')).toHaveLength(1);

    const plan = await makeNode(f.w, 'Plan', 'deploy');
    const req = await call(f.w, G, { action: 'request_approval', requires_plan_uid: plan }, 201);
    expect(req).toMatchObject({ status: 'pending', label: 'Approval Request' });
    expect((await node(f.w, req.uid)).props).toMatchObject({ status: 'pending', target_uid: plan, target_type: 'Plan', requested_at: expect.any(Number) });
    expect((await edgesTo(f.w, req.uid)).map((e) => [e.edge_type, e.from_uid])).toEqual([['RequiresApproval', plan]]);
    const pending = await call(f.ro, G, { action: 'get_pending' }, 200);
    expect(pending.map((n: any) => n.uid)).toEqual([req.uid]);
    const viaGet = await f.w.get('/approvals/pending');
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.map((n: any) => n.uid)).toEqual([req.uid]);

    const ok = await call(f.w, G, { action: 'resolve_approval', approval_uid: req.uid, approved: true, reason: 'reviewed' }, 200);
    expect(ok).toMatchObject({ status: 'approved', approved: true, version: 2 });
    expect((await node(f.w, req.uid)).props).toMatchObject({ decided_by: expect.any(String), reason: 'reviewed', decided_at: expect.any(Number) });
    const again = await f.w.post(G, { action: 'resolve_approval', approval_uid: req.uid, approved: false });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'invalid_transition', from_status: 'approved' });
    expect(await call(f.w, G, { action: 'get_pending' }, 200)).toEqual([]);
    expect((await f.w.post(G, { action: 'resolve_approval', approval_uid: req.uid, approved: 'yes' })).body.code).toBe('invalid_field');
  });

  it('set_budget updates only a budget in the Spaces the call places it in', async () => {
    const owner = api(f.app.url, f.jwt);
    const space = async (label: string) => (await call(owner, '/node', { node_type: 'Space', label }, 201)).uid as string;
    const a = await space('Ops A');
    const b = await space('Ops B');
    const agent = await makeNode(f.w, 'Agent', 'shared bot');
    const inB = await call(owner, G, { action: 'set_budget', governed_uid: agent, props: { budget_type: 'cost', limit: 10 }, space_uid: b }, 201);
    const inA = await call(owner, G, { action: 'set_budget', governed_uid: agent, props: { budget_type: 'cost', limit: 50 }, space_uid: a }, 201);
    expect(inA.created).toBe(true);
    expect(inA.uid).not.toBe(inB.uid);
    expect((await edgesFrom(owner, inA.uid)).filter((e) => e.edge_type === 'InSpace').map((e) => e.to_uid)).toEqual([a]);
    expect(await node(owner, inB.uid)).toMatchObject({ version: 1, props: { limit: 10, remaining: 10 } });
    const again = await call(owner, G, { action: 'set_budget', governed_uid: agent, props: { budget_type: 'cost', consumed: 4 }, space_uid: b }, 200);
    expect(again).toMatchObject({ uid: inB.uid, created: false });
    expect((await node(owner, inB.uid)).props).toMatchObject({ limit: 10, consumed: 4, remaining: 6 });
  });
});

describe('POST /agent/execution', () => {
  let f: CognitiveFixture;
  beforeAll(async () => (f = await startCognitive()));
  afterAll(() => f.close());
  const E = '/agent/execution';

  it('register_agent finds an agent only in the Spaces the call places it in', async () => {
    const owner = api(f.app.url, f.jwt);
    const space = async (label: string) => (await call(owner, '/node', { node_type: 'Space', label }, 201)).uid as string;
    const a = await space('Lab A');
    const b = await space('Lab B');
    const inB = await call(owner, E, { action: 'register_agent', label: 'Crawler', space_uid: b }, 201);
    const inA = await call(owner, E, { action: 'register_agent', label: 'crawler', space_uid: a }, 201);
    expect(inA).toMatchObject({ created: true, name: 'crawler' });
    expect(inA.uid).not.toBe(inB.uid);
    expect((await edgesFrom(owner, inA.uid)).filter((e) => e.edge_type === 'InSpace').map((e) => e.to_uid)).toEqual([a]);
    expect(await call(owner, E, { action: 'register_agent', label: 'CRAWLER', space_uid: b }, 200)).toEqual({ uid: inB.uid, name: 'Crawler', created: false });
  });

  it('register_agent upserts by name; start → complete; completing a failed execution is a 409', async () => {
    const a1 = await call(f.w, E, { action: 'register_agent', label: 'Runner' }, 201);
    expect(a1).toMatchObject({ name: 'Runner', created: true, node_type: 'Agent' });
    expect(await call(f.w, E, { action: 'register_agent', label: 'RUNNER' }, 200)).toEqual({ uid: a1.uid, name: 'Runner', created: false });

    const plan = await makeNode(f.w, 'Plan', 'p');
    const out = await makeNode(f.w, 'Document', 'report');
    const ex = await call(f.w, E, { action: 'start', plan_uid: plan, executor_uid: a1.uid, related_uids: [out] }, 201);
    expect((await node(f.w, ex.uid)).props).toMatchObject({ status: 'running', agent_uid: a1.uid, started_at: expect.any(Number) });
    expect((await edgesFrom(f.w, ex.uid)).map((e) => [e.edge_type, e.to_uid]).sort()).toEqual(
      [
        ['ExecutedBy', a1.uid],
        ['ExecutionOf', plan],
        ['Targets', out],
      ].sort(),
    );
    const done = await call(f.w, E, { action: 'complete', execution_uid: ex.uid, produces_node_uid: [out], props: { output_snapshot: { rows: 3 } } }, 200);
    expect(done).toMatchObject({ status: 'completed', version: 2, edges_created: 1 });
    expect((await edgesFrom(f.w, ex.uid)).filter((e) => e.edge_type === 'ProducesNode').map((e) => e.to_uid)).toEqual([out]);
    expect((await node(f.w, ex.uid)).props).toMatchObject({ output_snapshot: { rows: 3 }, completed_at: expect.any(Number) });

    const ex2 = await call(f.w, E, { action: 'start' }, 201);
    await call(f.w, E, { action: 'fail', execution_uid: ex2.uid, error: 'timeout' }, 200);
    expect((await node(f.w, ex2.uid)).props).toMatchObject({ status: 'failed', error: 'timeout' });
    const before = await graphSize(f.w);
    const c = await f.w.post(E, { action: 'complete', execution_uid: ex2.uid, produces_node_uid: out });
    expect(c.status).toBe(409);
    expect(c.body).toMatchObject({ code: 'invalid_transition', from_status: 'failed' });
    expect(await graphSize(f.w)).toEqual(before);

    const ofPlan = await call(f.ro, E, { action: 'get_executions', filter_plan_uid: plan }, 200);
    expect(ofPlan.map((n: any) => n.uid)).toEqual([ex.uid]);
    expect((await call(f.w, E, { action: 'get_executions', status: 'failed' }, 200)).map((n: any) => n.uid)).toEqual([ex2.uid]);
  });
});
