import { getNodeType, NODE_TYPES, NodeTypeDef } from '../catalogue/node-types';
import { applyPropsPatch, defaultPropsFor, serverMaintainedFields, validateNodeProps } from './validate-node-props';
import { domainErrorOf as errorOf } from '../testing/domain-error-of';


const def = (name: string): NodeTypeDef => getNodeType(name)!;
const create = (type: string, props: unknown, extra: Record<string, unknown> = {}) =>
  validateNodeProps(type, getNodeType(type) ?? null, props, { mode: 'create', ...extra });
const patch = (type: string, props: unknown) => validateNodeProps(type, getNodeType(type) ?? null, props, { mode: 'patch' });

describe('validateNodeProps create mode: output form (§2.6)', () => {
  it('returns every field of the type, tagged _type first, given values kept', () => {
    expect(create('Claim', { content: 'Water boils at 100C', certainty_degree: 0.9 })).toEqual({
      _type: 'Claim',
      content: 'Water boils at 100C',
      claim_type: null,
      certainty_degree: 0.9,
      truth_status: null,
      scope: null,
      quantitative_value: null,
      unit: null,
      uncertainty_range: null,
      event_date: null,
      source: null,
    });
  });

  it('fills arrays with [], plain strings with "", numbers and booleans with their defaults or 0', () => {
    expect(create('Goal', {})).toEqual({
      _type: 'Goal',
      description: '',
      goal_type: null,
      status: null,
      priority: null,
      deadline: null,
      success_criteria: [],
      progress: 0,
      source: null,
    });
    expect(create('SafetyBudget', undefined)).toMatchObject({ limit: 0, consumed: 0, remaining: 0, scope: null });
    expect(create('Execution', null)).toMatchObject({ input_snapshot: {}, output_snapshot: {}, reversible: false, side_effects: [] });
    expect(create('Person', {})).toMatchObject({ full_name: '', identifiers: null, attributes: null });
    expect(create('Document', {})).toMatchObject({ authors: [], keywords: [], processing_status: '' });
  });

  it('treats a null value as omitted', () => {
    expect(create('Evidence', { is_negative: null, description: null })).toMatchObject({ is_negative: false, description: '' });
  });

  it('tags the output with the canonical type name whatever _type spelling was sent', () => {
    expect(create('OpenQuestion', { _type: 'open_question', text: 'why?' })._type).toBe('OpenQuestion');
  });

  it('hands out fresh default arrays and objects', () => {
    const a = create('Theory', {});
    (a.core_commitments as string[]).push('x');
    expect(create('Theory', {}).core_commitments).toEqual([]);
    const e = create('Entity', {});
    (e.attributes as Record<string, unknown>).k = 1;
    expect(create('Entity', {}).attributes).toEqual({});
  });

  it.each(NODE_TYPES.map((t) => [t.name]))('accepts its own output form back for %s (export → import round trip)', (name) => {
    const d = def(name);
    const full = { ...defaultPropsFor(d), ...(d.fields.some((f) => f.required) ? { order: 3 } : {}) };
    expect(validateNodeProps(name, d, full, { mode: 'create', keepServerMaintained: true })).toEqual(full);
  });
});

describe('validateNodeProps: unknown fields (422)', () => {
  it('rejects fields the type does not define, listing them and the valid fields', () => {
    const e = errorOf(() => create('Preference', { key: 'k', colour: 'red', size: 3 }));
    expect(e.status).toBe(422);
    expect(e.code).toBe('unknown_props_fields');
    expect(e.message).toBe(
      'unknown fields for Preference: colour, size. Valid fields: key, value, preference_type, learned, explicit, evidence_count',
    );
    expect(e.context).toEqual({
      unknown_fields: ['colour', 'size'],
      valid_fields: ['key', 'value', 'preference_type', 'learned', 'explicit', 'evidence_count'],
    });
  });

  it('reports unknown fields before type errors, in patch mode too', () => {
    expect(errorOf(() => create('Claim', { certainty_degree: 'x', bogus: 1 })).code).toBe('unknown_props_fields');
    expect(errorOf(() => patch('Claim', { bogus: 1 })).toBody()).toMatchObject({ code: 'unknown_props_fields', unknown_fields: ['bogus'] });
  });

  it('does not accept a field of the other Concept row on a different type', () => {
    expect(errorOf(() => create('Person', { definition: 'x' })).code).toBe('unknown_props_fields');
    expect(create('Concept', { definition: 'x', attributes: { a: 1 } })).toMatchObject({ definition: 'x', attributes: { a: 1 } });
  });

  it('never fires for custom types', () => {
    expect(validateNodeProps('ResearchTopic', null, { anything: 1, nested: { x: [1] } }, { mode: 'create' })).toEqual({
      _type: 'ResearchTopic',
      anything: 1,
      nested: { x: [1] },
    });
  });
});

describe('validateNodeProps: wrong types and ranges (400 invalid_props)', () => {
  it.each([
    ['Claim', 'content', 42],
    ['Claim', 'certainty_degree', '0.5'],
    ['Evidence', 'is_negative', 'true'],
    ['Hypothesis', 'predicted_observations', 'one'],
    ['Hypothesis', 'predicted_observations', ['one', 2]],
    ['Entity', 'identifiers', ['x']],
    ['Person', 'attributes', 'x'],
    ['Chunk', 'chunk_index', Infinity],
    ['Chunk', 'chunk_index', NaN],
    ['Claim', 'source', 1],
  ])('%s.%s = %p is rejected', (type, field, value) => {
    const e = errorOf(() => create(type, { [field]: value }));
    expect(e.status).toBe(400);
    expect(e.toBody()).toMatchObject({ code: 'invalid_props', field: `props.${field}` });
  });

  it('names fields with the caller prefix', () => {
    const e = errorOf(() => validateNodeProps('Claim', def('Claim'), { content: 1 }, { mode: 'create', fieldPrefix: 'claim.props' }));
    expect(e.context.field).toBe('claim.props.content');
  });

  it('keeps 0–1 fields in range, bounds included', () => {
    expect(create('Claim', { certainty_degree: 0 }).certainty_degree).toBe(0);
    expect(create('Claim', { certainty_degree: 1 }).certainty_degree).toBe(1);
    for (const [type, field] of [
      ['Claim', 'certainty_degree'],
      ['Goal', 'progress'],
      ['RiskAssessment', 'likelihood'],
      ['OpenQuestion', 'importance'],
    ]) {
      for (const v of [-0.01, 1.01, 5]) {
        expect(errorOf(() => create(type, { [field]: v })).toBody()).toMatchObject({ code: 'invalid_props', field: `props.${field}` });
      }
      expect(errorOf(() => patch(type, { [field]: 2 })).code).toBe('invalid_props');
    }
  });

  it('leaves numbers without a 0–1 annotation unbounded', () => {
    expect(create('Claim', { quantitative_value: -1e9 }).quantitative_value).toBe(-1e9);
    expect(create('Policy', { priority: 99 }).priority).toBe(99);
  });

  it('rejects props that are not an object', () => {
    for (const p of ['text', 3, [], true]) {
      expect(errorOf(() => create('Claim', p)).toBody()).toMatchObject({ code: 'invalid_props', field: 'props' });
      expect(errorOf(() => patch('Claim', p)).code).toBe('invalid_props');
    }
    expect(errorOf(() => validateNodeProps('Widget', null, [], { mode: 'create' })).code).toBe('invalid_props');
  });
});

describe('validateNodeProps: closed status vocabularies', () => {
  it.each([
    ['Task', 'status', 'in_progress', 'started'],
    ['Goal', 'status', 'completed', 'finished'],
    ['Decision', 'status', 'revisited', 'pending'],
    ['Milestone', 'status', 'missed', 'late'],
    ['Approval', 'status', 'denied', 'rejected'],
    ['Execution', 'status', 'running', 'queued'],
    ['Hypothesis', 'status', 'testing', 'open'],
    ['Paradigm', 'status', 'dominant', 'old'],
    ['Question', 'status', 'answered', 'closed'],
    ['OpenQuestion', 'status', 'abandoned', 'closed'],
    ['Document', 'processing_status', 'partial', 'done'],
    ['Chunk', 'processing_status', 'failed', 'partial'],
    ['Skill', 'status', 'approved', 'published'],
  ])('%s.%s accepts %s and rejects %s', (type, field, ok, bad) => {
    expect(create(type, { [field]: ok })[field]).toBe(ok);
    const e = errorOf(() => create(type, { [field]: bad }));
    expect(e.toBody()).toMatchObject({ code: 'invalid_props', field: `props.${field}` });
    expect(e.context.expected).toEqual(def(type).fields.find((f) => f.name === field)!.enum);
    expect(errorOf(() => patch(type, { [field]: bad })).code).toBe('invalid_props');
  });

  it('matches vocabulary values exactly', () => {
    expect(errorOf(() => create('Task', { status: 'Done' })).code).toBe('invalid_props');
  });

  it('leaves other status and vocabulary-like strings free text', () => {
    expect(create('Theory', { status: 'whatever' }).status).toBe('whatever');
    expect(create('Plan', { status: 'approved' }).status).toBe('approved');
    expect(create('Anomaly', { severity: 'apocalyptic' }).severity).toBe('apocalyptic');
    expect(create('Document', { document_type: 'spreadsheet' }).document_type).toBe('spreadsheet');
  });
});

describe('validateNodeProps: _type', () => {
  it('rejects a _type that contradicts the type with 400 invalid_props, on create and patch', () => {
    expect(errorOf(() => create('Claim', { _type: 'Evidence' })).toBody()).toMatchObject({ code: 'invalid_props', field: 'props._type' });
    expect(errorOf(() => patch('Claim', { _type: 'Evidence', content: 'x' })).code).toBe('invalid_props');
    expect(errorOf(() => create('Claim', { _type: 5 })).code).toBe('invalid_props');
    expect(errorOf(() => validateNodeProps('ResearchTopic', null, { _type: 'Other' }, { mode: 'create' })).code).toBe('invalid_props');
  });

  it('accepts untagged props (cognitive calls) and any spelling of the same type', () => {
    expect(create('Claim', { content: 'x' })._type).toBe('Claim');
    expect(create('RiskAssessment', { _type: 'risk_assessment' })._type).toBe('RiskAssessment');
    expect(validateNodeProps('ResearchTopic', null, { _type: 'research_topic' }, { mode: 'create' })._type).toBe('ResearchTopic');
  });
});

describe('validateNodeProps: required fields', () => {
  it('requires FlowStep.order and PlanStep.order on create (400 missing_field)', () => {
    expect(errorOf(() => create('FlowStep', { description: 'x' })).toBody()).toMatchObject({ code: 'missing_field', field: 'props.order' });
    expect(errorOf(() => create('PlanStep', { order: null })).toBody()).toMatchObject({ code: 'missing_field', field: 'props.order' });
    expect(create('PlanStep', { order: 2 }).order).toBe(2);
  });

  it('lets a patch leave order alone but not reset it', () => {
    expect(patch('FlowStep', { description: 'y' })).toEqual({ description: 'y' });
    expect(errorOf(() => patch('FlowStep', { order: null })).code).toBe('missing_field');
  });
});

describe('validateNodeProps: server-maintained fields', () => {
  it('drops client values for the Series cache fields without complaint', () => {
    const out = create('Series', { metric: 'gdp', point_count: 99, first_ts: 'junk', latest_value: 5 });
    expect(out).toMatchObject({ metric: 'gdp', point_count: 0, first_ts: null, latest_value: null });
    expect(patch('Series', { point_count: 3, unit: 'USD' })).toEqual({ unit: 'USD' });
  });

  it('keeps and validates them for trusted writers', () => {
    const out = create('Series', { metric: 'gdp', point_count: 4, last_ts: 10 }, { keepServerMaintained: true });
    expect(out).toMatchObject({ point_count: 4, last_ts: 10 });
    expect(errorOf(() => create('Series', { point_count: 'x' }, { keepServerMaintained: true })).code).toBe('invalid_props');
  });

  it('validates and keeps Skill status and review fields for the caller to guard', () => {
    expect(create('Skill', { status: 'approved', reviewed_by: 'u1' })).toMatchObject({ status: 'approved', reviewed_by: 'u1' });
    expect(create('Skill', {}).status).toBe('candidate');
    expect(patch('Skill', { status: 'rejected' })).toEqual({ status: 'rejected' });
  });

  it('lists the server-maintained fields of a type', () => {
    expect(serverMaintainedFields(def('Series'))).toEqual(['point_count', 'first_ts', 'last_ts', 'latest_value', 'latest_ts']);
    expect(serverMaintainedFields(def('Claim'))).toEqual([]);
    expect(serverMaintainedFields(null)).toEqual([]);
  });
});

describe('validateNodeProps patch mode', () => {
  it('returns only the given keys, nulls kept, _type dropped', () => {
    expect(patch('Goal', { _type: 'Goal', progress: 0.5, deadline: null, success_criteria: ['a'] })).toEqual({
      progress: 0.5,
      deadline: null,
      success_criteria: ['a'],
    });
    expect(patch('Goal', undefined)).toEqual({});
  });

  it('passes custom patches through without _type', () => {
    expect(validateNodeProps('Widget', null, { _type: 'Widget', a: 1, b: null }, { mode: 'patch' })).toEqual({ a: 1, b: null });
  });
});

describe('applyPropsPatch (§2.6 Updates)', () => {
  const goal = def('Goal');

  it('shallow-merges, replaces arrays whole and resets null keys to their defaults', () => {
    const current = { ...create('Goal', { description: 'ship', success_criteria: ['a', 'b'], progress: 0.4, deadline: 5 }) };
    const next = applyPropsPatch(goal, current, { success_criteria: ['c'], progress: null, deadline: null, priority: 'high' });
    expect(next).toEqual({ ...current, success_criteria: ['c'], progress: 0, deadline: null, priority: 'high' });
    expect(Object.keys(next)[0]).toBe('_type');
  });

  it('resets arrays to [], plain strings to "" and booleans to their default', () => {
    const t = def('Theory');
    const cur = create('Theory', { name: 'n', core_commitments: ['x'] });
    expect(applyPropsPatch(t, cur, { name: null, core_commitments: null })).toMatchObject({ name: '', core_commitments: [] });
    const ev = create('Evidence', { is_negative: true });
    expect(applyPropsPatch(def('Evidence'), ev, { is_negative: null }).is_negative).toBe(false);
  });

  it('does not mutate the current props', () => {
    const current = create('Goal', { progress: 0.2 });
    const copy = JSON.parse(JSON.stringify(current));
    applyPropsPatch(goal, current, { progress: 0.9 });
    expect(current).toEqual(copy);
  });

  it('keeps _type and fills fields missing from older stored props', () => {
    const next = applyPropsPatch(goal, { _type: 'Goal', description: 'd' }, { progress: 0.1 });
    expect(next).toEqual({ ...create('Goal', { description: 'd', progress: 0.1 }) });
  });

  it('removes custom keys patched to null', () => {
    expect(applyPropsPatch(null, { _type: 'Widget', a: 1, b: 2 }, { a: null, c: 3 })).toEqual({ _type: 'Widget', b: 2, c: 3 });
  });

  it('never lets a __proto__ key change an object prototype', () => {
    const props = JSON.parse('{"_type":"Widget","__proto__":{"polluted":true}}');
    const out = validateNodeProps('Widget', null, props, { mode: 'create' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    const merged = applyPropsPatch(null, { _type: 'Widget' }, JSON.parse('{"__proto__":{"polluted":true}}'));
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(merged, '__proto__')).toBe(true);
    expect(errorOf(() => create('Claim', JSON.parse('{"__proto__":{"x":1}}'))).code).toBe('unknown_props_fields');
  });
});

describe('defaultPropsFor', () => {
  it('gives the full default output form', () => {
    expect(defaultPropsFor(def('Trace'))).toEqual({
      _type: 'Trace',
      session_uid: null,
      trace_type: null,
      entry_count: 0,
      started_at: null,
      ended_at: null,
      compressed: false,
    });
  });
});
