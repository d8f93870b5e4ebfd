import { Body } from '../validation';
import { EndpointDef, writes } from './action';
import { createAction, CreateSpec, planCreate } from './create-action';
import { containerSteps } from './ordered-steps';
import { TriggerDef } from './triggers';

const ADD_STEP_TRIGGERS: readonly TriggerDef[] = [
  { field: 'flow_uid', edge: 'ComposedOf', dir: 'in', arity: 'one', required: true, types: ['Flow'] },
  // previous → N: N depends on it, and it is followed by N
  { field: 'previous_step_uid', edge: 'DependsOn', dir: 'out', arity: 'one', types: ['FlowStep'], also: { edge: 'Follows', dir: 'in' } },
  { field: 'uses_affordance_uids', edge: 'StepUses', dir: 'out', arity: 'many', types: ['Affordance'] },
];

function givenOrder(body: Body): number | undefined {
  const p = body.props as Record<string, unknown> | undefined;
  return p && typeof p === 'object' && typeof p.order === 'number' ? p.order : undefined;
}

/** `add_step`: ordered FlowStep; the flow's step_count is refreshed (not versioned). */
const addStep = writes(async (body, view, ctx, action) => {
  let order = givenOrder(body);
  const spec: CreateSpec = {
    nodeType: 'FlowStep',
    // FlowStep.order is required by the catalogue: a placeholder passes validation, the real
    // value is set once the flow is loaded
    defaults: ({ label }) => ({ description: label, order: order ?? 0 }),
    triggers: ADD_STEP_TRIGGERS.map((t) =>
      t.field === 'flow_uid' ? { ...t, edgeProps: () => ({ order: order as number }) } : t,
    ),
    overrides: ({ trigger }) => {
      const uses = trigger('uses_affordance_uids');
      return uses ? { affordance_uid: uses.uids[0] } : {};
    },
  };
  let stepCount = 0;
  let flowUid = '';
  const { cs, node } = await planCreate(spec, body, view, ctx, {
    guard: async ({ node, triggers }) => {
      const flow = triggers.find((t) => t.def.field === 'flow_uid')!.nodes[0];
      const { steps, nextOrder } = await containerSteps(view, flow, 'ComposedOf');
      order ??= nextOrder;
      node.props.order = order;
      stepCount = steps.length + 1;
      flowUid = flow.uid;
    },
  });
  cs.touch(flowUid, { step_count: stepCount });
  return cs.createResult(node, action, { order });
});

/** REFERENCE §4.9 `/action/procedure`. */
export const ACTION_PROCEDURE: EndpointDef = {
  path: 'action/procedure',
  actions: {
    create_flow: createAction({
      nodeType: 'Flow',
      defaults: ({ label }) => ({ name: label, step_count: 0 }),
      triggers: [{ field: 'goal_uid', edge: 'RelevantTo', dir: 'out', arity: 'one' }],
    }),
    add_step: addStep,
    add_affordance: createAction({
      nodeType: 'Affordance',
      defaults: ({ label }) => ({ action_name: label }),
      triggers: [{ field: 'source_uid', edge: 'AvailableOn', dir: 'out', arity: 'one', setProp: 'source_uid' }],
    }),
    add_control: createAction({
      nodeType: 'Control',
      defaults: ({ label }) => ({ control_type: 'conditional', label }),
      triggers: [{ field: 'flow_uid', edge: 'Controls', dir: 'in', arity: 'one', types: ['Flow'] }],
    }),
  },
};
