import { EndpointDef } from './action';
import { createAction, CreateSpec } from './create-action';
import { TriggerDef } from './triggers';

/** Every trigger is accepted on every action; every edge goes N → X (REFERENCE §4.6). */
const TRIGGERS: readonly TriggerDef[] = [
  { field: 'analogous_to_uid', edge: 'AnalogousTo', dir: 'out', arity: 'one' },
  { field: 'transfers_to_uid', edge: 'TransfersTo', dir: 'out', arity: 'one_or_many' },
  { field: 'evaluates_uid', edge: 'Evaluates', dir: 'out', arity: 'one' },
  { field: 'outperforms_uid', edge: 'Outperforms', dir: 'out', arity: 'one' },
  { field: 'chain_steps', edge: 'HasChainStep', dir: 'out', arity: 'many', ordered: true },
  { field: 'derived_from_uid', edge: 'DerivedFrom', dir: 'out', arity: 'one_or_many' },
  { field: 'proven_by_uid', edge: 'ProvenBy', dir: 'out', arity: 'one' },
  { field: 'method_uid', edge: 'UsesMethod', dir: 'out', arity: 'one' },
  { field: 'describes_uid', edge: 'Describes', dir: 'out', arity: 'one' },
  { field: 'part_of_uid', edge: 'PartOf', dir: 'out', arity: 'one' },
  { field: 'supersedes_uid', edge: 'Supersedes', dir: 'out', arity: 'one' },
  { field: 'produces_uid', edge: 'Produces', dir: 'out', arity: 'one' },
  { field: 'related_uids', edge: 'RelevantTo', dir: 'out', arity: 'many' },
];

const structure = (nodeType: string, defaults?: CreateSpec['defaults'], layer?: CreateSpec['layer']) =>
  createAction({ nodeType, layer, defaults, triggers: TRIGGERS });
const named: CreateSpec['defaults'] = ({ label }) => ({ name: label });

export const EPISTEMIC_STRUCTURE: EndpointDef = {
  path: 'epistemic/structure',
  actions: {
    // the one place a Concept is epistemic (REFERENCE §2.2)
    concept: structure('Concept', named, 'epistemic'),
    pattern: structure('Pattern', named),
    mechanism: structure('Mechanism', named),
    model: structure('Model', named),
    reasoning_strategy: structure('ReasoningStrategy', named),
    method: structure('Method', named),
    experiment: structure('Experiment', named),
    model_evaluation: structure('ModelEvaluation'),
    analogy: structure('Analogy', ({ label }) => ({ description: label })),
    inference_chain: structure('InferenceChain', ({ label, count }) => ({ description: label, chain_length: count('chain_steps') })),
    sensitivity_analysis: structure('SensitivityAnalysis'),
    theorem: structure('Theorem', ({ label }) => ({ name: label, statement: label })),
    equation: structure('Equation', named),
  },
};
