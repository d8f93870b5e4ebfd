import {
  BUILTIN_EDGE_TYPE_NAMES,
  canonicalEdgeTypeName,
  EDGE_CATEGORIES,
  EDGE_TYPES,
  edgeTypeKey,
  findEdgeTypeBySpelling,
  getEdgeType,
  resolveEdgeType,
  validateEdgeProps,
} from './edge-types';
import { domainErrorOf as errorOf } from '../testing/domain-error-of';


// Independent, machine-extracted transcription of REFERENCE §3.4 (name:kind).
const SPEC_FIELDS: Record<string, string> = {
  ExtractedFrom: 'location:string method:string confidence:number',
  PartOf: 'role:string',
  HasPart: 'role:string',
  ChunkOf: 'chunk_index:number',
  Supports: 'strength:number support_type:string',
  Refutes: 'strength:number refutation_type:string',
  Justifies: 'necessity:string',
  Assumes: 'necessity:string',
  HasPremise: 'order:number role:string',
  Rebuts: 'defeat_type:string rebuttal_type:string content:string strength:number',
  Tests: 'outcome:string test_type:string',
  UsesMethod: 'variant:string',
  Addresses: 'completeness:string',
  Extends: 'extension_type:string',
  Supersedes: 'supersession_type:string',
  Contradicts: 'description:string contradiction_type:string resolution_status:string proposed_resolution:string',
  AnomalousTo: 'severity:string',
  AnalogousTo: 'mapping_type:string strength:number',
  TransfersTo: 'success:boolean adaptations:string',
  Evaluates: 'evaluation_context:string',
  Outperforms: 'metric:string margin:number conditions:string',
  FailsOn: 'failure_mode:string severity:string',
  HasChainStep: 'order:number step_confidence:number cumulative_confidence:number',
  PropagatesUncertaintyTo: 'propagation_factor:number propagation_type:string',
  SensitiveTo: 'elasticity:number direction:string threshold:number',
  RobustAcross: 'variation_type:string range_tested:string',
  ProposedBy: 'date:string context:string',
  AuthoredBy: 'position:string contribution:string',
  CitedBy: 'citation_type:string context:string',
  BelievedBy: 'confidence:number basis:string as_of_date:string',
  ConsensusIn: 'consensus_level:string as_of_date:string',
  DecomposesInto: 'order:number',
  DecidedOn: 'rationale:string as_of_date:string session_id:string retrieval_trace_id:string',
  Informs: 'relevance:number',
  RelevantTo: 'relevance_score:number',
  DependsOn: 'dependency_type:string',
  ComposedOf: 'order:number',
  Controls: 'interaction_type:string',
  CapturedIn: 'position:number',
  TraceEntry: 'order:number',
  AssignedTo: 'assigned_at:number',
  HasStep: 'order:number',
  WorksFor: 'role:string since:string until:string context:string',
  AffiliatedWith: 'role:string since:string until:string context:string',
  MemberOf: 'role:string since:string until:string context:string',
  LeaderOf: 'role:string since:string until:string context:string',
  ParticipatedIn: 'role:string since:string until:string context:string',
  ReportsTo: 'role:string since:string until:string context:string',
  FoundedBy: 'since:string until:string context:string',
  BasedIn: 'since:string until:string context:string',
  CitizenOf: 'since:string until:string context:string',
  LocatedIn: 'since:string until:string context:string',
  OccurredAt: 'since:string until:string context:string',
  OperatesIn: 'since:string until:string context:string',
  AlliedWith: 'strength:number since:string until:string context:string',
  RivalOf: 'strength:number since:string until:string context:string',
  Endorses: 'strength:number since:string until:string context:string',
  Criticizes: 'strength:number since:string until:string context:string',
  Strengthens: 'strength:number since:string until:string context:string',
  Challenges: 'strength:number since:string until:string context:string',
  RelatedTo: 'relation:string context:string',
  ExpertIn: 'level:string context:string',
  PartOfProject: 'admitted_at:number admitted_by:string',
  Covers: 'coverage:string',
  PossibleDuplicate: 'similarity:number method:string status:string detected_at:number',
  InSpace: 'assigned_at:number assigned_by:string',
};

const SPEC_CATEGORIES: Record<string, number> = {
  structural: 6,
  epistemic: 31,
  provenance: 5,
  intent: 9,
  action: 5,
  memory: 5,
  agent: 10,
  temporal: 1,
  social: 4,
  entity: 18,
  project: 1,
  extra: 3,
};

describe('edge type catalogue', () => {
  it('holds the 95 standard types plus Covers, PossibleDuplicate and InSpace (§13.9): 98', () => {
    expect(EDGE_TYPES).toHaveLength(98);
    expect(new Set(BUILTIN_EDGE_TYPE_NAMES).size).toBe(98);
    expect(new Set(BUILTIN_EDGE_TYPE_NAMES.map(edgeTypeKey)).size).toBe(98);
    expect(EDGE_TYPES.filter((t) => t.category !== 'extra')).toHaveLength(95);
    expect(EDGE_TYPES.filter((t) => t.category === 'extra').map((t) => t.name)).toEqual(['Covers', 'PossibleDuplicate', 'InSpace']);
  });

  it('counts each §3.1 category', () => {
    const counts: Record<string, number> = {};
    for (const t of EDGE_TYPES) counts[t.category] = (counts[t.category] ?? 0) + 1;
    expect(counts).toEqual(SPEC_CATEGORIES);
    expect(EDGE_CATEGORIES).toEqual(Object.keys(SPEC_CATEGORIES));
  });

  it.each(EDGE_TYPES.map((t) => [t.name]))('%s has the §3.4 fields, all optional', (name) => {
    const def = getEdgeType(name)!;
    const expected = SPEC_FIELDS[name] ? SPEC_FIELDS[name].split(' ').map((s) => s.split(':')) : [];
    expect(def.fields.map((f) => [f.name, f.kind])).toEqual(expected);
    expect(def.fields.every((f) => f.nullable && !f.required)).toBe(true);
  });

  it('emits every field of the type, absent ones null (PossibleDuplicate.status defaults to pending)', () => {
    expect(validateEdgeProps('Supports', getEdgeType('Supports')!, undefined, { mode: 'create' })).toEqual({
      _type: 'Supports',
      strength: null,
      support_type: null,
    });
    expect(validateEdgeProps('PossibleDuplicate', getEdgeType('PossibleDuplicate')!, { similarity: 0.93 }, { mode: 'create' })).toEqual({
      _type: 'PossibleDuplicate',
      similarity: 0.93,
      method: null,
      status: 'pending',
      detected_at: null,
    });
    expect(validateEdgeProps('Follows', getEdgeType('Follows')!, {}, { mode: 'create' })).toEqual({ _type: 'Follows' });
  });

  it('shares the affiliation fields among WorksFor, MemberOf and the rest of its row', () => {
    for (const n of ['WorksFor', 'AffiliatedWith', 'MemberOf', 'LeaderOf', 'ParticipatedIn', 'ReportsTo'])
      expect(getEdgeType(n)!.fields.map((f) => f.name)).toEqual(['role', 'since', 'until', 'context']);
  });
});

describe('edge type names (§3.2)', () => {
  it.each(['Supports', 'supports', 'SUPPORTS'])('matches %s to the built-in Supports', (s) => {
    expect(resolveEdgeType({ edge_type: s }).name).toBe('Supports');
  });

  it.each(['has_premise', 'HAS_PREMISE', 'hasPremise', 'has premise', 'Has-Premise'])('matches %s to HasPremise', (s) => {
    const r = resolveEdgeType({ edge_type: s });
    expect(r.name).toBe('HasPremise');
    expect(r.def).toBe(getEdgeType('HasPremise'));
  });

  it.each([
    ['BELONGS_TO', 'BelongsTo'],
    ['belongs_to', 'BelongsTo'],
    ['belongsTo', 'BelongsTo'],
  ])('emits the custom type %s as %s', (s, expected) => {
    expect(resolveEdgeType({ edge_type: s })).toEqual({ name: expected, def: null });
    expect(canonicalEdgeTypeName(s)).toBe(expected);
  });

  it('compares filters by key so every spelling matches', () => {
    expect(edgeTypeKey('HAS_PREMISE')).toBe(edgeTypeKey('HasPremise'));
    expect(edgeTypeKey('belongs to')).toBe(edgeTypeKey('BelongsTo'));
    expect(findEdgeTypeBySpelling('part_of_project')!.name).toBe('PartOfProject');
    expect(getEdgeType('part_of_project')).toBeUndefined();
  });
});

describe('resolveEdgeType (§3.5)', () => {
  it('takes the type from props._type when edge_type is omitted', () => {
    expect(resolveEdgeType({ props: { _type: 'supports', strength: 0.5 } }).name).toBe('Supports');
  });

  it('needs edge_type or props._type: 400 missing_field', () => {
    expect(errorOf(() => resolveEdgeType({})).toBody()).toMatchObject({ code: 'missing_field', field: 'edge_type' });
    expect(errorOf(() => resolveEdgeType({ edge_type: '' }, 'relation')).toBody()).toMatchObject({
      code: 'missing_field',
      field: 'relation',
    });
  });

  it('rejects bad syntax with 400 invalid_field naming the field', () => {
    for (const bad of ['1abc', 'a/b', 'x'.repeat(101), 5]) {
      const e = errorOf(() => resolveEdgeType({ edge_type: bad }));
      expect(e.status).toBe(400);
      expect(e.toBody()).toMatchObject({ code: 'invalid_field', field: 'edge_type' });
    }
  });

  it('rejects a contradicting props._type with 400 invalid_props', () => {
    expect(errorOf(() => resolveEdgeType({ edge_type: 'Supports', props: { _type: 'Refutes' } })).code).toBe('invalid_props');
    expect(resolveEdgeType({ edge_type: 'Supports', props: { _type: 'SUPPORTS' } }).name).toBe('Supports');
    expect(errorOf(() => resolveEdgeType({ edge_type: 'Supports', props: 'x' })).code).toBe('invalid_props');
  });
});

describe('validateEdgeProps', () => {
  const supports = getEdgeType('Supports')!;

  it('rejects unknown fields with 422 unknown_props_fields', () => {
    const e = errorOf(() => validateEdgeProps('Supports', supports, { strength: 0.3, weight: 1 }, { mode: 'create' }));
    expect(e.status).toBe(422);
    expect(e.toBody()).toEqual({
      error: 'unknown fields for Supports: weight. Valid fields: strength, support_type',
      code: 'unknown_props_fields',
      unknown_fields: ['weight'],
      valid_fields: ['strength', 'support_type'],
    });
  });

  it('rejects any field on a type that defines none', () => {
    const e = errorOf(() => validateEdgeProps('Follows', getEdgeType('Follows')!, { note: 'x' }, { mode: 'create' }));
    expect(e.toBody()).toMatchObject({ code: 'unknown_props_fields', unknown_fields: ['note'], valid_fields: [] });
  });

  it('rejects wrong JSON types with 400 invalid_props naming the field', () => {
    const e = errorOf(() => validateEdgeProps('Supports', supports, { strength: 'high' }, { mode: 'create' }));
    expect(e.toBody()).toMatchObject({ code: 'invalid_props', field: 'props.strength' });
    expect(errorOf(() => validateEdgeProps('TransfersTo', getEdgeType('TransfersTo')!, { success: 'yes' }, { mode: 'create' })).code).toBe(
      'invalid_props',
    );
  });

  it('rejects a props._type that contradicts the edge type', () => {
    expect(errorOf(() => validateEdgeProps('Supports', supports, { _type: 'Refutes' }, { mode: 'create' })).code).toBe('invalid_props');
  });

  it('lets custom edge types carry free-form props', () => {
    expect(validateEdgeProps('BelongsTo', null, { _type: 'belongs_to', anything: [1, { a: 2 }] }, { mode: 'create' })).toEqual({
      _type: 'BelongsTo',
      anything: [1, { a: 2 }],
    });
  });

  it('validates only the given keys in patch mode, keeping nulls', () => {
    expect(validateEdgeProps('Supports', supports, { strength: null, support_type: 'direct' }, { mode: 'patch' })).toEqual({
      strength: null,
      support_type: 'direct',
    });
  });
});
