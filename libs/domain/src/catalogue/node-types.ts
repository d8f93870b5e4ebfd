import { Layer } from '../records/node-record';
import { typeKey } from './names';
import { propsAdditionsOf } from './client-aliases';
import { parseFields, PropField } from './prop-field';

export interface NodeTypeDef {
  name: string;
  /** Fixed layer; Concept's is the default (reality), see resolveNodeType. */
  layer: Layer;
  fields: readonly PropField[];
  /** The route (or process) that normally creates this type (§2.1, §2.3). */
  writer: string;
}

// Rows transcribe the interface spec's "Typed props by node type" tables and REFERENCE
// §2.1–§2.3 (field syntax: see parseFields). Everything else is derived from these rows.
const QUESTION_FIELDS =
  'text string; question_type string?; scope string?; status string? (open|answered|abandoned); importance number? 0-1; tractability number? 0-1; blocking_factors string[]; source';

const ROWS: ReadonlyArray<readonly [name: string, layer: Layer, writer: string, fields: string]> = [
  // reality (12)
  ['Source', 'reality', '/reality/capture', 'source_type string; uri string; title string; content_hash string?; fetched_at number?; mime_type string?; content_length number?; domain string?'],
  ['Snippet', 'reality', '/reality/capture', 'content string; snippet_type string; source_location string?; char_offset_start number?; char_offset_end number?'],
  ['Observation', 'reality', '/reality/capture', 'observation_type string; content string; session_uid string?; timestamp number?'],
  ['Person', 'reality', '/reality/entity', 'full_name string; description string?; identifiers object?; attributes object?'],
  ['Organization', 'reality', '/reality/entity', 'org_type string?; description string?; identifiers object?; attributes object?'],
  ['Nation', 'reality', '/reality/entity', 'description string?; identifiers object?; attributes object?'],
  ['Event', 'reality', '/reality/entity', 'event_date string?; description string?; attributes object?'],
  ['Place', 'reality', '/reality/entity', 'description string?; identifiers object?; attributes object?'],
  // Union of the "Concept (reality)" and "Concept (epistemic)" rows (§2.2).
  ['Concept', 'reality', '/reality/entity', 'description string?; domain string?; attributes object?; name string; definition string?; definition_type string?; abstraction_level string?; alternative_definitions string[]'],
  ['Entity', 'reality', '/reality/entity', 'entity_type string; canonical_name string; description string?; identifiers object; attributes object'],
  ['Document', 'reality', 'ingestion', 'title string; document_type string; source_uri string?; mime_type string?; content_length number?; chunk_count number?; processed_at number?; processing_status string (pending|processing|completed|partial|failed); authors string[]?; abstract_text string?; doi string?; publication_date string?; journal string?; keywords string[]?; citation_count number?; arxiv_id string?; language string?; page_offsets string?; page_count number?; occurred_at string?'],
  ['Chunk', 'reality', 'ingestion', 'content string; chunk_type string; chunk_index number; char_offset_start number?; char_offset_end number?; token_count_estimate number?; processing_status string (pending|processing|completed|failed); extraction_count number?'],
  // epistemic (23)
  ['Claim', 'epistemic', '/epistemic/argument', 'content string; claim_type string?; certainty_degree number? 0-1; truth_status string?; scope string?; quantitative_value number?; unit string?; uncertainty_range string?; event_date string?; source'],
  ['Evidence', 'epistemic', '/epistemic/argument', 'description string; evidence_type string?; quantitative_value number?; unit string?; sample_size number?; statistical_significance number?; is_negative boolean =false; original_expectation string?; source_url string?'],
  ['Warrant', 'epistemic', '/epistemic/argument', 'principle string; warrant_type string?; explicit_in_text boolean =false; strength number? 0-1; domain_scope string?'],
  ['Argument', 'epistemic', '/epistemic/argument', 'summary string; argument_type string?; strength number? 0-1; is_valid boolean?; is_sound boolean?'],
  ['Hypothesis', 'epistemic', '/epistemic/inquiry', 'statement string; hypothesis_type string?; status string? (proposed|testing|confirmed|refuted); testability_score number? 0-1; novelty number? 0-1; predicted_observations string[]; source'],
  ['Theory', 'epistemic', '/epistemic/inquiry', 'name string; description string; domain string?; status string?; explanatory_scope string?; core_commitments string[]; predictive_successes string[]'],
  ['Paradigm', 'epistemic', '/epistemic/inquiry', 'name string; field string?; status string? (emerging|dominant|declining); core_assumptions string[]; exemplar_problems string[]; accepted_methods string[]; tension_score number? 0-1'],
  ['Anomaly', 'epistemic', '/epistemic/inquiry', 'description string; anomaly_type string?; severity string?; persistence string?; resolution_attempts number =0; source'],
  ['Assumption', 'epistemic', '/epistemic/inquiry', 'content string; assumption_type string?; explicit_in_text boolean =false; justification string?; vulnerability string?'],
  ['Question', 'epistemic', '/epistemic/inquiry', QUESTION_FIELDS],
  ['OpenQuestion', 'epistemic', '/epistemic/inquiry', QUESTION_FIELDS],
  ['Method', 'epistemic', '/epistemic/structure', 'name string; description string; method_type string?; domain string?; limitations string[]; validity_conditions string[]; parameters string[]'],
  ['Experiment', 'epistemic', '/epistemic/structure', 'name string?; description string; design_type string?; variables_manipulated string[]; variables_measured string[]; controls string[]; sample_description string?; date_conducted string?'],
  ['Analogy', 'epistemic', '/epistemic/structure', 'description string; source_domain string?; target_domain string?; analogy_type string?; mapping_elements string[]; strength number? 0-1; limitations string[]'],
  ['Pattern', 'epistemic', '/epistemic/structure', 'name string; description string; pattern_type string?; domains_observed string[]; instance_count number?; generality string?'],
  ['Mechanism', 'epistemic', '/epistemic/structure', 'name string; description string; components string[]; interactions string[]; input string?; output string?; level string?'],
  ['Model', 'epistemic', '/epistemic/structure', 'name string; description string; model_type string?; target_system string?; key_parameters string[]; simplifications string[]; validation_status string?'],
  ['ModelEvaluation', 'epistemic', '/epistemic/structure', 'evaluation_type string?; metrics string[]; failure_domains string[]; comparison_to string[]; evaluation_date string?'],
  ['InferenceChain', 'epistemic', '/epistemic/structure', 'description string; chain_length number?; compound_confidence number?; propagation_method string?; weakest_link string?; critical_assumptions string[]'],
  ['SensitivityAnalysis', 'epistemic', '/epistemic/structure', 'analysis_type string?; target_claim_uid string?; sensitivity_map string[]; robustness_score number? 0-1; critical_inputs string[]; break_points string[]'],
  ['ReasoningStrategy', 'epistemic', '/epistemic/structure', 'name string; description string; strategy_type string?; applicable_contexts string[]; limitations string[]'],
  ['Theorem', 'epistemic', '/epistemic/structure', 'name string?; statement string; proof_status string?; theorem_type string?; proof_technique string?; significance string?; applications string[]'],
  ['Equation', 'epistemic', '/epistemic/structure', 'name string?; expression string; description string?; equation_type string?; variables string[]; parameters string[]; domain string?; assumptions string[]'],
  // intent (6)
  ['Goal', 'intent', '/intent/commitment', 'description string; goal_type string?; status string? (active|completed|abandoned); priority string?; deadline number?; success_criteria string[]; progress number 0-1 =0; source'],
  ['Project', 'intent', '/intent/commitment', 'name string; description string; status string?; started_at number?; target_completion number?; source'],
  ['Milestone', 'intent', '/intent/commitment', 'description string; status string? (pending|reached|missed); target_date number?; reached_at number?; criteria string[]; source'],
  ['Decision', 'intent', '/intent/deliberation', 'question string; status string? (open|decided|revisited); decided_option_uid string?; decided_at number?; decision_rationale string?; reversibility string?; source'],
  ['Option', 'intent', '/intent/deliberation', 'description string; pros string[]; cons string[]; estimated_effort string?; estimated_risk string?; score number?'],
  ['Constraint', 'intent', '/intent/deliberation', 'description string; constraint_type string?; hard boolean =false; value string?; unit string?'],
  // action (5)
  ['Flow', 'action', '/action/procedure', 'name string; description string; flow_type string?; step_count number?; estimated_duration_seconds number?; overall_risk string?'],
  ['FlowStep', 'action', '/action/procedure', 'order number required; description string; affordance_uid string?; is_optional boolean =false; is_checkpoint boolean =false; fallback_description string?'],
  ['Affordance', 'action', '/action/procedure', 'action_name string; description string; affordance_type string?; source_uid string?; selector string?; parameters string[]; preconditions string[]; postconditions string[]; risk_level string?; reversible boolean =false'],
  ['Control', 'action', '/action/procedure', 'control_type string; label string?; selector string?; source_uid string?; state string?; value string?'],
  ['RiskAssessment', 'action', '/action/risk', 'target_uid string?; risk_type string?; severity string?; likelihood number? 0-1; mitigation string?; requires_approval boolean =false'],
  // memory (6)
  ['Session', 'memory', '/memory/session', 'started_at number; ended_at number?; session_type string?; focus_summary string?; active_goal_uids string[]'],
  ['Trace', 'memory', '/memory/session', 'session_uid string?; trace_type string?; entry_count number =0; started_at number?; ended_at number?; compressed boolean =false'],
  ['Journal', 'memory', '/memory/session', 'content string; session_uid string?; journal_type string?; tags string[]'],
  ['Summary', 'memory', '/memory/distill', 'content string; summary_type string?; source_node_uids string[]; compression_ratio number?; generated_by string?; generated_at number?'],
  ['Preference', 'memory', '/memory/config', 'key string; value string; preference_type string?; learned boolean =false; explicit boolean =false; evidence_count number =0'],
  ['MemoryPolicy', 'memory', '/memory/config', 'policy_type string?; target_node_type string?; condition string?; action string?; active boolean =false'],
  // agent (8)
  ['Task', 'agent', '/agent/plan', 'description string; task_type string?; status string? (pending|in_progress|done|failed); assigned_to string?; created_by string?; priority string?; deadline number?; parent_goal_uid string?; depends_on_task_uids string[]; result_summary string?'],
  ['Plan', 'agent', '/agent/plan', 'description string; task_uid string?; status string?; step_count number?; estimated_risk string?; proposed_at number?; approved_at number?; approved_by string?'],
  ['PlanStep', 'agent', '/agent/plan', 'order number required; description string; plan_uid string?; status string?; target_affordance_uid string?; expected_outcome string?; actual_outcome string?; requires_approval boolean =false'],
  ['Policy', 'agent', '/agent/governance', 'name string; description string; policy_type string?; rules string[]; applies_to string?; active boolean =false; priority number =0'],
  ['SafetyBudget', 'agent', '/agent/governance', 'scope string?; scope_uid string?; budget_type string?; limit number; consumed number; remaining number; on_exhaustion string?'],
  ['Approval', 'agent', '/agent/governance', 'target_uid string?; target_type string?; status string? (pending|approved|denied); requested_at number?; decided_at number?; decided_by string?; reason string?; conditions string?'],
  ['Agent', 'agent', '/agent/execution', 'name string; agent_type string?; model_id string?; capabilities string[]; status string?; current_task_uid string?; autonomy_level string?; domain_restrictions string[]'],
  ['Space', 'agent', '/node', 'name string; description string?; default_classification string =internal (public|internal|confidential|restricted)'],
  ['Execution', 'agent', '/agent/execution', 'description string; agent_uid string?; plan_step_uid string?; affordance_uid string?; status string? (running|completed|failed); started_at number?; completed_at number?; input_snapshot object; output_snapshot object; error string?; side_effects string[]; reversible boolean =false; rollback_execution_uid string?'],
  // additional built-ins (§2.3)
  ['Article', 'memory', '/synthesis/run', 'content string; article_type string?; covers_uid string?; questions string[]; project_uid string?; source_node_uids string[]; generated_by string?; generated_at number?; edited_at number?; source'],
  ['Lesson', 'memory', '/memory/distill', 'content string; lesson_type string?; source_node_uids string[]; session_uid string?; applicability string?; source'],
  ['Series', 'reality', '/reality/series', 'metric string; unit string?; entity_uid string?; description string?; interval_secs number?; point_count number =0 server; first_ts number? server; last_ts number? server; latest_value number? server; latest_ts number? server; source'],
  ['Skill', 'action', '/action/skill', 'name string; description string; skill_type string?; status string =candidate (candidate|reviewed|approved|rejected|deprecated) guarded; steps string[]; preconditions string[]; postconditions string[]; tools string[]; source_node_uids string[]; proposed_by string?; reviewed_by string? guarded; reviewed_at number? guarded; review_notes string? guarded; approved_by string? guarded; approved_at number? guarded; rejected_reason string? guarded; deprecated_at number? guarded; deprecated_reason string? guarded; superseded_by_uid string? guarded'],
];

export const NODE_TYPES: readonly NodeTypeDef[] = Object.freeze(
  ROWS.map(([name, layer, writer, fields]) =>
    // the §2.8 additions (client-aliases.ts) extend a row without rewriting it
    Object.freeze({ name, layer, writer, fields: Object.freeze(parseFields(`${fields}; ${propsAdditionsOf(name)}`)) }),
  ),
);

/** The four types §2.3 adds to the 60 of §2.1 (§13.9 adds Space, in the agent layer). */
export const ADDITIONAL_NODE_TYPE_NAMES: readonly string[] = Object.freeze(['Article', 'Lesson', 'Series', 'Skill']);
export const BUILTIN_NODE_TYPE_NAMES: readonly string[] = Object.freeze(NODE_TYPES.map((t) => t.name));
/** The seven reality entity types (§4.2): fuzzy-resolution candidates and `/reality/entity` targets. */
export const ENTITY_NODE_TYPE_NAMES: readonly string[] = Object.freeze([
  'Person',
  'Organization',
  'Nation',
  'Event',
  'Place',
  'Concept',
  'Entity',
]);

const BY_NAME = new Map<string, NodeTypeDef>(NODE_TYPES.map((t) => [t.name, t]));
const BY_KEY = new Map<string, NodeTypeDef>(NODE_TYPES.map((t) => [typeKey(t.name), t]));

/** A built-in type by its canonical name. */
export function getNodeType(name: string): NodeTypeDef | undefined {
  return BY_NAME.get(name);
}

/** A built-in type by any spelling (`open_question`, `OPENQUESTION` → OpenQuestion). */
export function findNodeTypeBySpelling(name: string): NodeTypeDef | undefined {
  return BY_KEY.get(typeKey(name));
}

export function isBuiltinNodeType(name: string): boolean {
  return BY_NAME.has(name);
}

export function nodeTypesInLayer(layer: Layer): readonly NodeTypeDef[] {
  return NODE_TYPES.filter((t) => t.layer === layer);
}
