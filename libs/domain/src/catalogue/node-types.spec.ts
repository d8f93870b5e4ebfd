import { LAYERS } from '../records/node-record';
import { typeKey } from './names';
import {
  ADDITIONAL_NODE_TYPE_NAMES,
  BUILTIN_NODE_TYPE_NAMES,
  ENTITY_NODE_TYPE_NAMES,
  findNodeTypeBySpelling,
  getNodeType,
  isBuiltinNodeType,
  NODE_TYPES,
  nodeTypesInLayer,
} from './node-types';
import { defaultPropsOf, validatePropsAgainst } from './schema';

// Independent transcription of the interface spec's props tables and REFERENCE §2.3
// (name:kind, '?' = nullable), machine-extracted from the documents.
const SPEC_FIELDS: Record<string, string> = {
  Source: 'source_type:string uri:string title:string content_hash:string? fetched_at:number? mime_type:string? content_length:number? domain:string?',
  Snippet: 'content:string snippet_type:string source_location:string? char_offset_start:number? char_offset_end:number?',
  Person: 'full_name:string description:string? identifiers:object? attributes:object?',
  Organization: 'org_type:string? description:string? identifiers:object? attributes:object?',
  Nation: 'description:string? identifiers:object? attributes:object?',
  Event: 'event_date:string? description:string? attributes:object?',
  Place: 'description:string? identifiers:object? attributes:object?',
  Concept: 'description:string? domain:string? attributes:object? name:string definition:string? definition_type:string? abstraction_level:string? alternative_definitions:string[]',
  Entity: 'entity_type:string canonical_name:string description:string? identifiers:object attributes:object',
  Observation: 'observation_type:string content:string session_uid:string? timestamp:number?',
  Document: 'title:string document_type:string source_uri:string? mime_type:string? content_length:number? chunk_count:number? processed_at:number? processing_status:string authors:string[]? abstract_text:string? doi:string? publication_date:string? journal:string? keywords:string[]? citation_count:number? arxiv_id:string? language:string? page_offsets:string? page_count:number? occurred_at:string?',
  Chunk: 'content:string chunk_type:string chunk_index:number char_offset_start:number? char_offset_end:number? token_count_estimate:number? processing_status:string extraction_count:number?',
  Claim: 'content:string claim_type:string? certainty_degree:number? truth_status:string? scope:string? quantitative_value:number? unit:string? uncertainty_range:string? event_date:string? source:string?',
  Evidence: 'description:string evidence_type:string? quantitative_value:number? unit:string? sample_size:number? statistical_significance:number? is_negative:boolean original_expectation:string? source_url:string?',
  Warrant: 'principle:string warrant_type:string? explicit_in_text:boolean strength:number? domain_scope:string?',
  Argument: 'summary:string argument_type:string? strength:number? is_valid:boolean? is_sound:boolean?',
  Hypothesis: 'statement:string hypothesis_type:string? status:string? testability_score:number? novelty:number? predicted_observations:string[] source:string?',
  Theory: 'name:string description:string domain:string? status:string? explanatory_scope:string? core_commitments:string[] predictive_successes:string[]',
  Paradigm: 'name:string field:string? status:string? core_assumptions:string[] exemplar_problems:string[] accepted_methods:string[] tension_score:number?',
  Anomaly: 'description:string anomaly_type:string? severity:string? persistence:string? resolution_attempts:number source:string?',
  Method: 'name:string description:string method_type:string? domain:string? limitations:string[] validity_conditions:string[] parameters:string[]',
  Experiment: 'name:string? description:string design_type:string? variables_manipulated:string[] variables_measured:string[] controls:string[] sample_description:string? date_conducted:string?',
  Assumption: 'content:string assumption_type:string? explicit_in_text:boolean justification:string? vulnerability:string?',
  Question: 'text:string question_type:string? scope:string? status:string? importance:number? tractability:number? blocking_factors:string[] source:string?',
  OpenQuestion: 'text:string question_type:string? scope:string? status:string? importance:number? tractability:number? blocking_factors:string[] source:string?',
  Analogy: 'description:string source_domain:string? target_domain:string? analogy_type:string? mapping_elements:string[] strength:number? limitations:string[]',
  Pattern: 'name:string description:string pattern_type:string? domains_observed:string[] instance_count:number? generality:string?',
  Mechanism: 'name:string description:string components:string[] interactions:string[] input:string? output:string? level:string?',
  Model: 'name:string description:string model_type:string? target_system:string? key_parameters:string[] simplifications:string[] validation_status:string?',
  ModelEvaluation: 'evaluation_type:string? metrics:string[] failure_domains:string[] comparison_to:string[] evaluation_date:string?',
  InferenceChain: 'description:string chain_length:number? compound_confidence:number? propagation_method:string? weakest_link:string? critical_assumptions:string[]',
  SensitivityAnalysis: 'analysis_type:string? target_claim_uid:string? sensitivity_map:string[] robustness_score:number? critical_inputs:string[] break_points:string[]',
  ReasoningStrategy: 'name:string description:string strategy_type:string? applicable_contexts:string[] limitations:string[]',
  Theorem: 'name:string? statement:string proof_status:string? theorem_type:string? proof_technique:string? significance:string? applications:string[]',
  Equation: 'name:string? expression:string description:string? equation_type:string? variables:string[] parameters:string[] domain:string? assumptions:string[]',
  Goal: 'description:string goal_type:string? status:string? priority:string? deadline:number? success_criteria:string[] progress:number source:string?',
  Project: 'name:string description:string status:string? started_at:number? target_completion:number? source:string?',
  Decision: 'question:string status:string? decided_option_uid:string? decided_at:number? decision_rationale:string? reversibility:string? source:string?',
  Option: 'description:string pros:string[] cons:string[] estimated_effort:string? estimated_risk:string? score:number?',
  Constraint: 'description:string constraint_type:string? hard:boolean value:string? unit:string?',
  Milestone: 'description:string status:string? target_date:number? reached_at:number? criteria:string[] source:string?',
  Affordance: 'action_name:string description:string affordance_type:string? source_uid:string? selector:string? parameters:string[] preconditions:string[] postconditions:string[] risk_level:string? reversible:boolean',
  Flow: 'name:string description:string flow_type:string? step_count:number? estimated_duration_seconds:number? overall_risk:string?',
  FlowStep: 'order:number description:string affordance_uid:string? is_optional:boolean is_checkpoint:boolean fallback_description:string?',
  Control: 'control_type:string label:string? selector:string? source_uid:string? state:string? value:string?',
  RiskAssessment: 'target_uid:string? risk_type:string? severity:string? likelihood:number? mitigation:string? requires_approval:boolean',
  Session: 'started_at:number ended_at:number? session_type:string? focus_summary:string? active_goal_uids:string[]',
  Trace: 'session_uid:string? trace_type:string? entry_count:number started_at:number? ended_at:number? compressed:boolean',
  Journal: 'content:string session_uid:string? journal_type:string? tags:string[]',
  Summary: 'content:string summary_type:string? source_node_uids:string[] compression_ratio:number? generated_by:string? generated_at:number?',
  Preference: 'key:string value:string preference_type:string? learned:boolean explicit:boolean evidence_count:number',
  MemoryPolicy: 'policy_type:string? target_node_type:string? condition:string? action:string? active:boolean',
  Agent: 'name:string agent_type:string? model_id:string? capabilities:string[] status:string? current_task_uid:string? autonomy_level:string? domain_restrictions:string[]',
  Task: 'description:string task_type:string? status:string? assigned_to:string? created_by:string? priority:string? deadline:number? parent_goal_uid:string? depends_on_task_uids:string[] result_summary:string?',
  Plan: 'description:string task_uid:string? status:string? step_count:number? estimated_risk:string? proposed_at:number? approved_at:number? approved_by:string?',
  PlanStep: 'order:number description:string plan_uid:string? status:string? target_affordance_uid:string? expected_outcome:string? actual_outcome:string? requires_approval:boolean',
  Approval: 'target_uid:string? target_type:string? status:string? requested_at:number? decided_at:number? decided_by:string? reason:string? conditions:string?',
  Policy: 'name:string description:string policy_type:string? rules:string[] applies_to:string? active:boolean priority:number',
  Execution: 'description:string agent_uid:string? plan_step_uid:string? affordance_uid:string? status:string? started_at:number? completed_at:number? input_snapshot:object output_snapshot:object error:string? side_effects:string[] reversible:boolean rollback_execution_uid:string?',
  SafetyBudget: 'scope:string? scope_uid:string? budget_type:string? limit:number consumed:number remaining:number on_exhaustion:string?',
  Article: 'content:string article_type:string? covers_uid:string? questions:string[] project_uid:string? source_node_uids:string[] generated_by:string? generated_at:number? edited_at:number? source:string?',
  Lesson: 'content:string lesson_type:string? source_node_uids:string[] session_uid:string? applicability:string? source:string?',
  Series: 'metric:string unit:string? entity_uid:string? description:string? interval_secs:number? point_count:number first_ts:number? last_ts:number? latest_value:number? latest_ts:number? source:string?',
  Space: 'name:string description:string? default_classification:string',
  Skill: 'name:string description:string skill_type:string? status:string steps:string[] preconditions:string[] postconditions:string[] tools:string[] source_node_uids:string[] proposed_by:string? reviewed_by:string? reviewed_at:number? review_notes:string? approved_by:string? approved_at:number? rejected_reason:string? deprecated_at:number? deprecated_reason:string? superseded_by_uid:string?',
};

// REFERENCE §2.8 "Props additions": optional strings appended to the spec's rows.
const SPEC_ADDITIONS: Record<string, string> = {
  Journal: 'mood:string?',
  RiskAssessment: 'vulnerability:string?',
  MemoryPolicy: 'principle:string?',
  SafetyBudget: 'description:string?',
  Control: 'condition:string? action:string?',
};

function specFields(type: string): Array<[string, string]> {
  const all = SPEC_ADDITIONS[type] ? `${SPEC_FIELDS[type]} ${SPEC_ADDITIONS[type]}` : SPEC_FIELDS[type];
  return all.split(' ').map((t) => t.split(':') as [string, string]);
}

describe('node type catalogue', () => {
  it('holds 65 built-in types: the 60 of §2.1 plus Article, Lesson, Series and Skill, and Space (§13.9)', () => {
    expect(NODE_TYPES).toHaveLength(65);
    expect(new Set(BUILTIN_NODE_TYPE_NAMES).size).toBe(65);
    expect(getNodeType('Space')!.layer).toBe('agent');
    expect(ADDITIONAL_NODE_TYPE_NAMES).toEqual(['Article', 'Lesson', 'Series', 'Skill']);
    expect(Object.keys(SPEC_FIELDS).sort()).toEqual([...BUILTIN_NODE_TYPE_NAMES].sort());
  });

  it('spreads the 60 standard types over the layers 12/23/6/5/6/8 (§2.1)', () => {
    const counts: Record<string, number> = {};
    for (const t of NODE_TYPES) if (!ADDITIONAL_NODE_TYPE_NAMES.includes(t.name) && t.name !== 'Space') counts[t.layer] = (counts[t.layer] ?? 0) + 1;
    expect(counts).toEqual({ reality: 12, epistemic: 23, intent: 6, action: 5, memory: 6, agent: 8 });
  });

  it('places the four additional types in their §2.3 layers', () => {
    expect(getNodeType('Article')!.layer).toBe('memory');
    expect(getNodeType('Lesson')!.layer).toBe('memory');
    expect(getNodeType('Series')!.layer).toBe('reality');
    expect(getNodeType('Skill')!.layer).toBe('action');
  });

  it('puts each §2.1 type in its listed layer with its usual writer', () => {
    const table: Array<[string, string, string]> = [
      ['reality', '/reality/capture', 'Source Snippet Observation'],
      ['reality', '/reality/entity', 'Person Organization Nation Event Place Concept Entity'],
      ['reality', 'ingestion', 'Document Chunk'],
      ['epistemic', '/epistemic/argument', 'Claim Evidence Warrant Argument'],
      ['epistemic', '/epistemic/inquiry', 'Hypothesis Theory Paradigm Anomaly Assumption Question OpenQuestion'],
      [
        'epistemic',
        '/epistemic/structure',
        'Method Experiment Analogy Pattern Mechanism Model ModelEvaluation InferenceChain SensitivityAnalysis ReasoningStrategy Theorem Equation',
      ],
      ['intent', '/intent/commitment', 'Goal Project Milestone'],
      ['intent', '/intent/deliberation', 'Decision Option Constraint'],
      ['action', '/action/procedure', 'Flow FlowStep Affordance Control'],
      ['action', '/action/risk', 'RiskAssessment'],
      ['memory', '/memory/session', 'Session Trace Journal'],
      ['memory', '/memory/distill', 'Summary'],
      ['memory', '/memory/config', 'Preference MemoryPolicy'],
      ['agent', '/agent/plan', 'Task Plan PlanStep'],
      ['agent', '/agent/governance', 'Policy SafetyBudget Approval'],
      ['agent', '/agent/execution', 'Agent Execution'],
    ];
    let n = 0;
    for (const [layer, writer, names] of table) {
      for (const name of names.split(' ')) {
        n++;
        expect({ name, layer: getNodeType(name)?.layer, writer: getNodeType(name)?.writer }).toEqual({ name, layer, writer });
      }
    }
    expect(n).toBe(60);
  });

  it.each(BUILTIN_NODE_TYPE_NAMES.map((n) => [n]))('%s has exactly the fields, kinds and nullability of the spec table', (name) => {
    const def = getNodeType(name)!;
    expect(def.fields.map((f) => [f.name, f.kind + (f.nullable ? '?' : '')])).toEqual(specFields(name));
  });

  it.each(BUILTIN_NODE_TYPE_NAMES.map((n) => [n]))('%s has the §2.6 output form when created with no props', (name) => {
    const def = getNodeType(name)!;
    // The two types with a required field get it; everything else is left to the defaults.
    const given = def.fields.some((f) => f.required) ? { order: 1 } : undefined;
    const out = validatePropsAgainst('node', name, def, given, { mode: 'create' });
    expect(defaultPropsOf(def)).toEqual({ ...out, ...(given ? { order: 0 } : {}) });
    expect(Object.keys(out)).toEqual(['_type', ...def.fields.map((f) => f.name)]);
    expect(out._type).toBe(name);
    for (const f of def.fields) {
      let expected: unknown;
      if (f.default !== undefined) expected = f.default;
      else if (f.kind === 'string[]') expected = [];
      else if (f.nullable) expected = null;
      else if (f.required) expected = 1;
      else expected = { string: '', number: 0, boolean: false, object: {} }[f.kind];
      expect([f.name, out[f.name]]).toEqual([f.name, expected]);
    }
  });

  it('gives every documented default', () => {
    const d = (type: string, field: string) => getNodeType(type)!.fields.find((f) => f.name === field)!.default;
    expect(d('Goal', 'progress')).toBe(0);
    expect(d('Evidence', 'is_negative')).toBe(false);
    expect(d('Warrant', 'explicit_in_text')).toBe(false);
    expect(d('Assumption', 'explicit_in_text')).toBe(false);
    expect(d('Anomaly', 'resolution_attempts')).toBe(0);
    expect(d('Constraint', 'hard')).toBe(false);
    expect(d('Affordance', 'reversible')).toBe(false);
    expect(d('FlowStep', 'is_optional')).toBe(false);
    expect(d('FlowStep', 'is_checkpoint')).toBe(false);
    expect(d('RiskAssessment', 'requires_approval')).toBe(false);
    expect(d('Trace', 'entry_count')).toBe(0);
    expect(d('Trace', 'compressed')).toBe(false);
    expect(d('Preference', 'learned')).toBe(false);
    expect(d('Preference', 'explicit')).toBe(false);
    expect(d('Preference', 'evidence_count')).toBe(0);
    expect(d('MemoryPolicy', 'active')).toBe(false);
    expect(d('PlanStep', 'requires_approval')).toBe(false);
    expect(d('Policy', 'active')).toBe(false);
    expect(d('Policy', 'priority')).toBe(0);
    expect(d('Execution', 'reversible')).toBe(false);
    expect(d('Series', 'point_count')).toBe(0);
    expect(d('Skill', 'status')).toBe('candidate');
  });

  it('marks exactly the 0–1 fields of the spec as unit fields', () => {
    const units = NODE_TYPES.flatMap((t) => t.fields.filter((f) => f.unit).map((f) => `${t.name}.${f.name}`));
    expect(units.sort()).toEqual(
      [
        'Claim.certainty_degree',
        'Warrant.strength',
        'Argument.strength',
        'Hypothesis.testability_score',
        'Hypothesis.novelty',
        'Paradigm.tension_score',
        'Question.importance',
        'Question.tractability',
        'OpenQuestion.importance',
        'OpenQuestion.tractability',
        'Analogy.strength',
        'SensitivityAnalysis.robustness_score',
        'Goal.progress',
        'RiskAssessment.likelihood',
      ].sort(),
    );
  });

  it('closes exactly the status vocabularies §2.6 lists', () => {
    const closed = Object.fromEntries(
      NODE_TYPES.flatMap((t) => t.fields.filter((f) => f.enum).map((f) => [`${t.name}.${f.name}`, [...f.enum!]])),
    );
    expect(closed).toEqual({
      'Space.default_classification': ['public', 'internal', 'confidential', 'restricted'],
      'Document.processing_status': ['pending', 'processing', 'completed', 'partial', 'failed'],
      'Chunk.processing_status': ['pending', 'processing', 'completed', 'failed'],
      'Hypothesis.status': ['proposed', 'testing', 'confirmed', 'refuted'],
      'Paradigm.status': ['emerging', 'dominant', 'declining'],
      'Question.status': ['open', 'answered', 'abandoned'],
      'OpenQuestion.status': ['open', 'answered', 'abandoned'],
      'Goal.status': ['active', 'completed', 'abandoned'],
      'Milestone.status': ['pending', 'reached', 'missed'],
      'Decision.status': ['open', 'decided', 'revisited'],
      'Task.status': ['pending', 'in_progress', 'done', 'failed'],
      'Approval.status': ['pending', 'approved', 'denied'],
      'Execution.status': ['running', 'completed', 'failed'],
      'Skill.status': ['candidate', 'reviewed', 'approved', 'rejected', 'deprecated'],
    });
  });

  it('requires only FlowStep.order and PlanStep.order', () => {
    const required = NODE_TYPES.flatMap((t) => t.fields.filter((f) => f.required).map((f) => `${t.name}.${f.name}`));
    expect(required).toEqual(['FlowStep.order', 'PlanStep.order']);
  });

  it('flags the Series cache fields (dropped) and the Skill status/review fields (guarded) as server-maintained', () => {
    const flagged = (type: string) =>
      getNodeType(type)!
        .fields.filter((f) => f.serverMaintained)
        .map((f) => `${f.name}${f.guarded ? '!' : ''}`);
    expect(flagged('Series')).toEqual(['point_count', 'first_ts', 'last_ts', 'latest_value', 'latest_ts']);
    expect(flagged('Skill')).toEqual([
      'status!',
      'reviewed_by!',
      'reviewed_at!',
      'review_notes!',
      'approved_by!',
      'approved_at!',
      'rejected_reason!',
      'deprecated_at!',
      'deprecated_reason!',
      'superseded_by_uid!',
    ]);
    const others = NODE_TYPES.filter((t) => t.name !== 'Series' && t.name !== 'Skill' && t.fields.some((f) => f.serverMaintained));
    expect(others).toEqual([]);
  });

  it('gives Question and OpenQuestion the same props schema', () => {
    expect(getNodeType('OpenQuestion')!.fields).toEqual(getNodeType('Question')!.fields);
  });

  it('makes Concept the union of the reality and epistemic rows (§2.2), reality by default', () => {
    const concept = getNodeType('Concept')!;
    expect(concept.layer).toBe('reality');
    expect(concept.fields.map((f) => f.name)).toEqual([
      'description',
      'domain',
      'attributes',
      'name',
      'definition',
      'definition_type',
      'abstraction_level',
      'alternative_definitions',
    ]);
  });

  it('types every `source` field as a nullable string', () => {
    const sources = NODE_TYPES.flatMap((t) => t.fields.filter((f) => f.name === 'source').map((f) => [t.name, f.kind, f.nullable]));
    expect(sources.map((s) => s[0]).sort()).toEqual(
      ['Claim', 'Hypothesis', 'Anomaly', 'Question', 'OpenQuestion', 'Goal', 'Project', 'Decision', 'Milestone', 'Article', 'Lesson', 'Series'].sort(),
    );
    for (const s of sources) expect(s.slice(1)).toEqual(['string', true]);
  });

  it('finds types by canonical name with getNodeType, and by any spelling with findNodeTypeBySpelling', () => {
    expect(getNodeType('OpenQuestion')!.name).toBe('OpenQuestion');
    expect(getNodeType('open_question')).toBeUndefined();
    expect(getNodeType('Unknown')).toBeUndefined();
    expect(findNodeTypeBySpelling('open_question')!.name).toBe('OpenQuestion');
    expect(findNodeTypeBySpelling('OPENQUESTION')!.name).toBe('OpenQuestion');
    expect(findNodeTypeBySpelling('risk-assessment')!.name).toBe('RiskAssessment');
    expect(findNodeTypeBySpelling('Widget')).toBeUndefined();
    expect(isBuiltinNodeType('Claim')).toBe(true);
    expect(isBuiltinNodeType('claim')).toBe(false);
  });

  it('gives every built-in a distinct comparison key', () => {
    expect(new Set(BUILTIN_NODE_TYPE_NAMES.map(typeKey)).size).toBe(65);
  });

  it('lists types per layer and the seven entity types', () => {
    expect(nodeTypesInLayer('intent').map((t) => t.name)).toEqual(['Goal', 'Project', 'Milestone', 'Decision', 'Option', 'Constraint']);
    expect(nodeTypesInLayer('ontology')).toEqual([]);
    for (const t of NODE_TYPES) expect(LAYERS).toContain(t.layer);
    expect(ENTITY_NODE_TYPE_NAMES.every((n) => getNodeType(n)!.layer === 'reality')).toBe(true);
  });

  it('is frozen so callers cannot alter the catalogue', () => {
    expect(Object.isFrozen(NODE_TYPES)).toBe(true);
    expect(Object.isFrozen(getNodeType('Claim'))).toBe(true);
    expect(Object.isFrozen(getNodeType('Claim')!.fields)).toBe(true);
    expect(Object.isFrozen(getNodeType('Claim')!.fields[0])).toBe(true);
  });
});
