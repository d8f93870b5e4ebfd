import { EndpointDef } from './action';
import { createAction, CreateSpec } from './create-action';
import { TriggerDef } from './triggers';

const TRIGGERS: readonly TriggerDef[] = [
  {
    field: 'parent_uid',
    edge: 'DecomposesInto',
    dir: 'in',
    arity: 'one',
    types: ['Goal', 'Project', 'Milestone'],
    // the parent's live DecomposesInto children plus this one, those the caller cannot see included
    edgeProps: async ({ target, view }) => ({
      order: (await (view.unscoped ?? view).edges({ from_uid: target.uid, edge_types: ['DecomposesInto'] })).length + 1,
    }),
  },
  { field: 'motivated_by_uid', edge: 'MotivatedBy', dir: 'out', arity: 'one_or_many' },
  { field: 'related_uids', edge: 'RelevantTo', dir: 'out', arity: 'many' },
];

const commitment = (nodeType: string, defaults: CreateSpec['defaults']) => createAction({ nodeType, defaults, triggers: TRIGGERS });

/** REFERENCE §4.7 `/intent/commitment`. */
export const INTENT_COMMITMENT: EndpointDef = {
  path: 'intent/commitment',
  actions: {
    goal: commitment('Goal', ({ label }) => ({ description: label, status: 'active', progress: 0 })),
    project: commitment('Project', ({ label, ctx }) => ({ name: label, status: 'active', started_at: ctx.now })),
    milestone: commitment('Milestone', ({ label }) => ({ description: label, status: 'pending' })),
  },
};
