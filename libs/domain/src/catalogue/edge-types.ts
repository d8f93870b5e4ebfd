import { Errors } from '../errors/domain-error';
import { EDGE_TYPE_NAME_RE, canonicalCustomName, typeKey } from './names';
import { parseFields, PropField } from './prop-field';
import { isPlainObject, PropsValidationOptions, validatePropsAgainst } from './schema';

export interface EdgeTypeDef {
  name: string;
  category: string;
  fields: readonly PropField[];
}

// REFERENCE §3.1: the 95 standard types plus Covers and PossibleDuplicate; §13.9 adds InSpace.
const CATEGORIES: ReadonlyArray<readonly [category: string, names: string]> = [
  ['structural', 'ExtractedFrom PartOf HasPart InstanceOf Contains ChunkOf'],
  [
    'epistemic',
    'Supports Refutes Justifies HasPremise HasConclusion HasWarrant Rebuts Assumes Tests Produces UsesMethod Addresses Generates Extends Supersedes Contradicts AnomalousTo AnalogousTo Instantiates TransfersTo Evaluates Outperforms FailsOn HasChainStep PropagatesUncertaintyTo SensitiveTo RobustAcross Describes DerivedFrom ReliesOn ProvenBy',
  ],
  ['provenance', 'ProposedBy AuthoredBy CitedBy BelievedBy ConsensusIn'],
  ['intent', 'DecomposesInto MotivatedBy HasOption DecidedOn ConstrainedBy Blocks Informs RelevantTo DependsOn'],
  ['action', 'AvailableOn ComposedOf StepUses RiskAssessedBy Controls'],
  ['memory', 'CapturedIn TraceEntry Summarizes Recalls GovernedBy'],
  ['agent', 'AssignedTo PlannedBy HasStep Targets RequiresApproval ExecutedBy ExecutionOf ProducesNode GovernedByPolicy BudgetFor'],
  ['temporal', 'Follows'],
  ['social', 'WorksFor AffiliatedWith About KnownBy'],
  [
    'entity',
    'MemberOf LeaderOf FoundedBy BasedIn CitizenOf LocatedIn OccurredAt ParticipatedIn AlliedWith RivalOf ReportsTo Endorses Criticizes RelatedTo ExpertIn OperatesIn Strengthens Challenges',
  ],
  ['project', 'PartOfProject'],
  ['extra', 'Covers PossibleDuplicate InSpace'],
];

// REFERENCE §3.4: every field optional (nullable); types not listed have no fields.
const AFFILIATION = 'role string?; since string?; until string?; context string?';
const PLACEMENT = 'since string?; until string?; context string?';
const STANCE = 'strength number?; since string?; until string?; context string?';

const FIELDS: ReadonlyArray<readonly [names: string, fields: string]> = [
  ['ExtractedFrom', 'location string?; method string?; confidence number?'],
  ['PartOf HasPart', 'role string?'],
  ['ChunkOf', 'chunk_index number?'],
  ['Supports', 'strength number?; support_type string?'],
  ['Refutes', 'strength number?; refutation_type string?'],
  ['Justifies Assumes', 'necessity string?'],
  ['HasPremise', 'order number?; role string?'],
  ['Rebuts', 'defeat_type string?; rebuttal_type string?; content string?; strength number?'],
  ['Tests', 'outcome string?; test_type string?'],
  ['UsesMethod', 'variant string?'],
  ['Addresses', 'completeness string?'],
  ['Extends', 'extension_type string?'],
  ['Supersedes', 'supersession_type string?'],
  ['Contradicts', 'description string?; contradiction_type string?; resolution_status string?; proposed_resolution string?'],
  ['AnomalousTo', 'severity string?'],
  ['AnalogousTo', 'mapping_type string?; strength number?'],
  ['TransfersTo', 'success boolean?; adaptations string?'],
  ['Evaluates', 'evaluation_context string?'],
  ['Outperforms', 'metric string?; margin number?; conditions string?'],
  ['FailsOn', 'failure_mode string?; severity string?'],
  ['HasChainStep', 'order number?; step_confidence number?; cumulative_confidence number?'],
  ['PropagatesUncertaintyTo', 'propagation_factor number?; propagation_type string?'],
  ['SensitiveTo', 'elasticity number?; direction string?; threshold number?'],
  ['RobustAcross', 'variation_type string?; range_tested string?'],
  ['ProposedBy', 'date string?; context string?'],
  ['AuthoredBy', 'position string?; contribution string?'],
  ['CitedBy', 'citation_type string?; context string?'],
  ['BelievedBy', 'confidence number?; basis string?; as_of_date string?'],
  ['ConsensusIn', 'consensus_level string?; as_of_date string?'],
  ['DecomposesInto', 'order number?'],
  ['DecidedOn', 'rationale string?; as_of_date string?; session_id string?; retrieval_trace_id string?'],
  ['Informs', 'relevance number?'],
  ['RelevantTo', 'relevance_score number?'],
  ['DependsOn', 'dependency_type string?'],
  ['ComposedOf', 'order number?'],
  ['Controls', 'interaction_type string?'],
  ['CapturedIn', 'position number?'],
  ['TraceEntry', 'order number?'],
  ['AssignedTo', 'assigned_at number?'],
  ['HasStep', 'order number?'],
  ['WorksFor AffiliatedWith MemberOf LeaderOf ParticipatedIn ReportsTo', AFFILIATION],
  ['FoundedBy BasedIn CitizenOf LocatedIn OccurredAt OperatesIn', PLACEMENT],
  ['AlliedWith RivalOf Endorses Criticizes Strengthens Challenges', STANCE],
  ['RelatedTo', 'relation string?; context string?'],
  ['ExpertIn', 'level string?; context string?'],
  ['PartOfProject', 'admitted_at number?; admitted_by string?'],
  ['Covers', 'coverage string?'],
  ['PossibleDuplicate', 'similarity number?; method string?; status string? =pending; detected_at number?'],
  ['InSpace', 'assigned_at number?; assigned_by string?'],
];

function buildEdgeTypes(): EdgeTypeDef[] {
  const fieldsByName = new Map<string, readonly PropField[]>();
  for (const [names, spec] of FIELDS) {
    const fields = Object.freeze(parseFields(spec));
    for (const n of names.split(' ')) {
      if (fieldsByName.has(n)) throw new Error(`edge type ${n} has two field rows`);
      fieldsByName.set(n, fields);
    }
  }
  const defs: EdgeTypeDef[] = [];
  for (const [category, names] of CATEGORIES) {
    for (const name of names.split(' ')) {
      defs.push(Object.freeze({ name, category, fields: fieldsByName.get(name) ?? Object.freeze([]) }));
      fieldsByName.delete(name);
    }
  }
  if (fieldsByName.size) throw new Error(`field rows for unknown edge types: ${[...fieldsByName.keys()].join(', ')}`);
  return defs;
}

export const EDGE_TYPES: readonly EdgeTypeDef[] = Object.freeze(buildEdgeTypes());
export const BUILTIN_EDGE_TYPE_NAMES: readonly string[] = Object.freeze(EDGE_TYPES.map((t) => t.name));
export const EDGE_CATEGORIES: readonly string[] = Object.freeze(CATEGORIES.map(([c]) => c));

const BY_NAME = new Map<string, EdgeTypeDef>(EDGE_TYPES.map((t) => [t.name, t]));
const BY_KEY = new Map<string, EdgeTypeDef>(EDGE_TYPES.map((t) => [typeKey(t.name), t]));

/** A built-in edge type by its canonical name. */
export function getEdgeType(name: string): EdgeTypeDef | undefined {
  return BY_NAME.get(name);
}

/** A built-in edge type by any spelling (`has_premise`, `HAS_PREMISE` → HasPremise). */
export function findEdgeTypeBySpelling(name: string): EdgeTypeDef | undefined {
  return BY_KEY.get(typeKey(name));
}

/** Filter key of an edge type (§3.2 Filters): every spelling of a type has the same key. */
export const edgeTypeKey = typeKey;

/** Canonical name of an edge type spelling, without syntax checks: built-in name or PascalCase custom. */
export function canonicalEdgeTypeName(name: string): string {
  return BY_KEY.get(typeKey(name))?.name ?? canonicalCustomName(name);
}

function blank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/**
 * Resolves `edge_type` / `props._type` (§3.2, §3.5). Missing both → 400 missing_field;
 * bad syntax → 400 invalid_field; the two disagree → 400 invalid_props.
 */
export function resolveEdgeType(
  input: { edge_type?: unknown; props?: unknown },
  field = 'edge_type',
): { name: string; def: EdgeTypeDef | null } {
  const props = input.props;
  if (props !== undefined && props !== null && !isPlainObject(props)) {
    throw Errors.invalidProps('props must be a JSON object', { field: 'props' });
  }
  const fromType = blank(input.edge_type) ? undefined : checkEdgeName(input.edge_type, field, false);
  const tag = props ? (props as Record<string, unknown>)._type : undefined;
  const fromTag = blank(tag) ? undefined : checkEdgeName(tag, 'props._type', true);
  const spelled = fromType ?? fromTag;
  if (spelled === undefined) throw Errors.missingField(field);
  if (fromType !== undefined && fromTag !== undefined && typeKey(fromType) !== typeKey(fromTag)) {
    // errors name edge types in canonical form, like every other output (§3.2)
    throw Errors.invalidProps(`props._type '${canonicalEdgeTypeName(fromTag)}' contradicts ${field} '${canonicalEdgeTypeName(fromType)}'`, {
      field: 'props._type',
    });
  }
  const def = BY_KEY.get(typeKey(spelled)) ?? null;
  return { name: def ? def.name : canonicalCustomName(spelled), def };
}

function checkEdgeName(v: unknown, field: string, isTag: boolean): string {
  if (typeof v !== 'string') {
    if (isTag) throw Errors.invalidProps(`${field} must be a string`, { field });
    throw Errors.invalidField(field, `${field} must be a string`);
  }
  if (!EDGE_TYPE_NAME_RE.test(v)) {
    throw Errors.invalidField(field, `${field} must match ${EDGE_TYPE_NAME_RE.source}`);
  }
  return v;
}

/**
 * Validates edge props (§3.4) like node props: unknown fields → 422, wrong types → 400.
 * Create mode returns the output form (every field, absent → null/default, tagged `_type`).
 */
export function validateEdgeProps(
  name: string,
  def: EdgeTypeDef | null,
  props: unknown,
  opts: PropsValidationOptions,
): Record<string, unknown> {
  return validatePropsAgainst('edge', name, def, props, opts);
}
