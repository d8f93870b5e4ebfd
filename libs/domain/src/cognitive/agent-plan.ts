import { Errors } from '../errors';
import { decideUpdateNode } from '../graph';
import { Body, readString, readUid } from '../validation';
import { EndpointDef, reads, writes } from './action';
import { createAction, CreateSpec, planCreate } from './create-action';
import { ChangeSet, readResult } from './decision';
import { containerSteps } from './ordered-steps';
import { readPropsPatch } from './props-patch';
import { requirePresent } from './required';
import { loadLive, TriggerDef } from './triggers';
import { actorOf } from './actor';

export const TASK_STATUSES = ['pending', 'in_progress', 'done', 'failed'] as const;
const STATUS_TARGETS = ['Task', 'Plan', 'PlanStep'] as const;

const ADD_STEP_TRIGGERS: readonly TriggerDef[] = [
  { field: 'plan_uid', edge: 'HasStep', dir: 'in', arity: 'one', required: true, types: ['Plan'], setProp: 'plan_uid' },
  // each dependency → N: N depends on it, and it is followed by N
  { field: 'depends_on_uids', edge: 'DependsOn', dir: 'out', arity: 'many', types: ['PlanStep'], also: { edge: 'Follows', dir: 'in' } },
];

function givenOrder(body: Body): number | undefined {
  const p = body.props as Record<string, unknown> | undefined;
  return p && typeof p === 'object' && typeof p.order === 'number' ? p.order : undefined;
}

/** `add_step`: an ordered PlanStep; the plan's step_count is refreshed (not versioned). */
const addStep = writes(async (body, view, ctx, action) => {
  let order = givenOrder(body);
  let planUid = '';
  let stepCount = 0;
  const spec: CreateSpec = {
    nodeType: 'PlanStep',
    defaultLabel: 'Step',
    // PlanStep.order is required by the catalogue: the placeholder is replaced once the plan is loaded
    defaults: ({ label }) => ({ description: label, status: 'pending', order: order ?? 0 }),
    triggers: ADD_STEP_TRIGGERS.map((t) => (t.field === 'plan_uid' ? { ...t, edgeProps: () => ({ order: order as number }) } : t)),
  };
  const { cs, node } = await planCreate(spec, body, view, ctx, {
    guard: async ({ node, triggers }) => {
      const plan = triggers.find((t) => t.def.field === 'plan_uid')!.nodes[0];
      const { steps, nextOrder } = await containerSteps(view, plan, 'HasStep');
      order ??= nextOrder;
      node.props.order = order;
      planUid = plan.uid;
      stepCount = steps.length + 1;
    },
  });
  cs.touch(planUid, { step_count: stepCount });
  return cs.createResult(node, action, { order });
});

/** `update_status`: a Task, Plan or PlanStep changes status (Task statuses are a closed set). */
const updateStatus = writes(async (body, view, ctx, action) => {
  requirePresent(body, ['target_uid', 'status']);
  const status = readString(body, 'status', { required: true, max: 200 })!;
  const uid = readUid(body, 'target_uid', { required: true })!;
  const [target] = await loadLive(view, [{ uid, field: 'target_uid', types: STATUS_TARGETS }]);
  if (target.node_type === 'Task' && !(TASK_STATUSES as readonly string[]).includes(status))
    throw Errors.invalidField('status', `Task status must be one of: ${TASK_STATUSES.join(', ')}`, { allowed: [...TASK_STATUSES] });
  const patch = readPropsPatch(body, target.node_type);
  const props: Record<string, unknown> = {};
  if (target.node_type === 'Task' && patch.result_summary !== undefined) props.result_summary = patch.result_summary;
  if (target.node_type === 'PlanStep' && patch.actual_outcome !== undefined) props.actual_outcome = patch.actual_outcome;
  props.status = status;
  if (target.node_type === 'Plan' && status === 'approved') {
    props.approved_at = ctx.now;
    props.approved_by = actorOf(ctx);
  }
  const previous = target.props.status ?? null;
  const cs = new ChangeSet(ctx);
  const next = cs.updateNode(decideUpdateNode(target, { props }, ctx), `${action}: ${status}`);
  return cs.transitionResult(next, action, { previous_status: previous });
});

/** `get_plan`: the plan, its live steps by order, and the live edges among them. */
const getPlan = reads(async (body, view) => {
  requirePresent(body, ['plan_uid']);
  const uid = readUid(body, 'plan_uid', { required: true })!;
  const [plan] = await loadLive(view, [{ uid, field: 'plan_uid', types: ['Plan'] }]);
  const { steps } = await containerSteps(view, plan, 'HasStep');
  steps.sort((a, b) => Number(a.props.order) - Number(b.props.order) || (a.uid < b.uid ? -1 : a.uid > b.uid ? 1 : 0));
  const members = new Set([plan.uid, ...steps.map((s) => s.uid)]);
  const edges = [];
  const seen = new Set<string>();
  for (const m of members) {
    for (const e of await view.edges({ from_uid: m, edge_types: ['HasStep', 'DependsOn', 'Follows'] })) {
      if (members.has(e.to_uid) && !seen.has(e.uid)) {
        seen.add(e.uid);
        edges.push(e);
      }
    }
  }
  return readResult({ plan, steps, edges });
});

const TASK_TRIGGERS: readonly TriggerDef[] = [
  { field: 'goal_uid', edge: 'Targets', dir: 'out', arity: 'one', types: ['Goal'], setProp: 'parent_goal_uid' },
  { field: 'related_uids', edge: 'Targets', dir: 'out', arity: 'many' },
  { field: 'depends_on_uids', edge: 'DependsOn', dir: 'out', arity: 'many', types: ['Task'], setProp: 'depends_on_task_uids' },
  {
    field: 'assigned_to_uid',
    edge: 'AssignedTo',
    dir: 'out',
    arity: 'one',
    types: ['Agent'],
    setProp: 'assigned_to',
    edgeProps: ({ ctx }) => ({ assigned_at: ctx.now }),
  },
];

/** REFERENCE §4.15 `/agent/plan`. */
export const AGENT_PLAN: EndpointDef = {
  path: 'agent/plan',
  actions: {
    create_task: createAction({
      nodeType: 'Task',
      defaultLabel: 'Task',
      defaults: ({ label, ctx }) => ({ description: label, status: 'pending', created_by: ctx.agent_id }),
      triggers: TASK_TRIGGERS,
    }),
    create_plan: createAction({
      nodeType: 'Plan',
      defaultLabel: 'Plan',
      defaults: ({ label, ctx }) => ({ description: label, status: 'pending', proposed_at: ctx.now, step_count: 0 }),
      triggers: [
        { field: 'task_uid', edge: 'PlannedBy', dir: 'out', arity: 'one', types: ['Task'], setProp: 'task_uid' },
        { field: 'goal_uid', edge: 'Targets', dir: 'out', arity: 'one' },
        { field: 'related_uids', edge: 'Targets', dir: 'out', arity: 'many' },
      ],
    }),
    add_step: addStep,
    update_status: updateStatus,
    get_plan: getPlan,
  },
};
