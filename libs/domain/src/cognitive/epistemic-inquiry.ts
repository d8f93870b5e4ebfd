import { EndpointDef } from './action';
import { createAction, CreateSpec } from './create-action';
import { TriggerDef } from './triggers';

/** Every trigger is accepted on every action; every edge goes N → X (REFERENCE §4.5). */
const TRIGGERS: readonly TriggerDef[] = [
  { field: 'anomalous_to_uid', edge: 'AnomalousTo', dir: 'out', arity: 'one' },
  { field: 'tests_uid', edge: 'Tests', dir: 'out', arity: 'one' },
  { field: 'assumes_uid', edge: 'Assumes', dir: 'out', arity: 'one_or_many' },
  { field: 'addresses_uid', edge: 'Addresses', dir: 'out', arity: 'one' },
  { field: 'supersedes_uid', edge: 'Supersedes', dir: 'out', arity: 'one' },
  { field: 'produces_uid', edge: 'Produces', dir: 'out', arity: 'one' },
  { field: 'related_uids', edge: 'RelevantTo', dir: 'out', arity: 'many' },
];

const inquiry = (nodeType: string, defaults: CreateSpec['defaults']) => createAction({ nodeType, defaults, triggers: TRIGGERS });

export const EPISTEMIC_INQUIRY: EndpointDef = {
  path: 'epistemic/inquiry',
  actions: {
    hypothesis: inquiry('Hypothesis', ({ label }) => ({ statement: label, status: 'proposed' })),
    theory: inquiry('Theory', ({ label }) => ({ name: label, status: 'developing' })),
    paradigm: inquiry('Paradigm', ({ label }) => ({ name: label, status: 'emerging' })),
    anomaly: inquiry('Anomaly', ({ label }) => ({ description: label, resolution_attempts: 0 })),
    assumption: inquiry('Assumption', ({ label }) => ({ content: label })),
    question: inquiry('Question', ({ label }) => ({ text: label, status: 'open' })),
    open_question: inquiry('OpenQuestion', ({ label }) => ({ text: label, status: 'open' })),
  },
};
