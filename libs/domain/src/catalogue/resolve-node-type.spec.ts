import { LAYERS } from '../records/node-record';
import { canonicalNodeTypeName, resolveNodeType } from './resolve-node-type';
import { domainErrorOf as errorOf } from '../testing/domain-error-of';


describe('resolveNodeType (§2.5)', () => {
  it.each(['OpenQuestion', 'open_question', 'OPENQUESTION', 'openQuestion', 'open-question', 'open question', 'OPEN_QUESTION'])(
    'resolves the spelling %s to the built-in OpenQuestion',
    (spelling) => {
      const r = resolveNodeType({ node_type: spelling });
      expect(r.name).toBe('OpenQuestion');
      expect(r.def?.name).toBe('OpenQuestion');
      expect(r.layer).toBe('epistemic');
    },
  );

  it('keeps Question and OpenQuestion apart', () => {
    expect(resolveNodeType({ node_type: 'question' }).name).toBe('Question');
  });

  it('infers the type from props._type when node_type is omitted', () => {
    const r = resolveNodeType({ props: { _type: 'risk_assessment', severity: 'high' } });
    expect(r).toMatchObject({ name: 'RiskAssessment', layer: 'action' });
  });

  it('accepts node_type and props._type that normalise to the same type', () => {
    expect(resolveNodeType({ node_type: 'Claim', props: { _type: 'CLAIM' } }).name).toBe('Claim');
    expect(resolveNodeType({ node_type: 'research_topic', props: { _type: 'ResearchTopic' } }).name).toBe('ResearchTopic');
  });

  it('rejects node_type and props._type that normalise to different types with 400 invalid_props', () => {
    const e = errorOf(() => resolveNodeType({ node_type: 'Claim', props: { _type: 'Evidence' } }));
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid_props');
    expect(errorOf(() => resolveNodeType({ node_type: 'Question', props: { _type: 'OpenQuestion' } })).code).toBe('invalid_props');
    expect(errorOf(() => resolveNodeType({ node_type: 'Widget', props: { _type: 'Gadget' } })).code).toBe('invalid_props');
  });

  it('needs node_type or props._type: 400 missing_field node_type', () => {
    for (const input of [{}, { props: {} }, { node_type: null, props: { _type: null } }, { node_type: '  ' }]) {
      const e = errorOf(() => resolveNodeType(input));
      expect(e.toBody()).toMatchObject({ code: 'missing_field', field: 'node_type' });
      expect(e.status).toBe(400);
    }
  });

  it('rejects a malformed custom name with 400 invalid_field node_type', () => {
    for (const bad of ['2fast', 'a.b', 'x'.repeat(65), 42, ['Claim']]) {
      const e = errorOf(() => resolveNodeType({ node_type: bad }));
      expect(e.toBody()).toMatchObject({ code: 'invalid_field', field: 'node_type' });
    }
    expect(errorOf(() => resolveNodeType({ props: { _type: 'no/slash' } })).toBody()).toMatchObject({
      code: 'invalid_field',
      field: 'props._type',
    });
    expect(errorOf(() => resolveNodeType({ props: { _type: 7 } })).toBody()).toMatchObject({ code: 'invalid_props', field: 'props._type' });
  });

  it('rejects props that are not an object with 400 invalid_props', () => {
    for (const props of ['x', [1], 3]) expect(errorOf(() => resolveNodeType({ node_type: 'Claim', props })).code).toBe('invalid_props');
  });

  it('treats any other name as a custom type in PascalCase (§2.4)', () => {
    const r = resolveNodeType({ node_type: 'research_topic' });
    expect(r).toEqual({ name: 'ResearchTopic', def: null, layer: 'reality' });
    expect(resolveNodeType({ node_type: 'BELONGS_TO_SET' }).name).toBe('BelongsToSet');
  });
});

describe('resolveNodeType layers (§2.2, §2.4)', () => {
  it('gives custom types the sent layer, default reality', () => {
    for (const layer of LAYERS) expect(resolveNodeType({ node_type: 'Widget', layer }).layer).toBe(layer);
    expect(resolveNodeType({ node_type: 'Widget' }).layer).toBe('reality');
    expect(resolveNodeType({ node_type: 'Widget', layer: null }).layer).toBe('reality');
  });

  it('ignores a valid layer sent for a built-in other than Concept', () => {
    expect(resolveNodeType({ node_type: 'Claim', layer: 'memory' }).layer).toBe('epistemic');
    expect(resolveNodeType({ node_type: 'Goal', layer: 'reality' }).layer).toBe('intent');
  });

  it('makes Concept reality by default and epistemic when asked', () => {
    expect(resolveNodeType({ node_type: 'Concept' }).layer).toBe('reality');
    expect(resolveNodeType({ node_type: 'concept', layer: 'epistemic' }).layer).toBe('epistemic');
    expect(resolveNodeType({ node_type: 'Concept', layer: 'reality' }, { defaultLayerForConcept: 'epistemic' }).layer).toBe('reality');
    expect(resolveNodeType({ node_type: 'Concept' }, { defaultLayerForConcept: 'epistemic' }).layer).toBe('epistemic');
    // Concept lives only in reality or epistemic.
    expect(resolveNodeType({ node_type: 'Concept', layer: 'agent' }).layer).toBe('reality');
  });

  it('rejects a layer that is not one of the seven with 400 invalid_field layer', () => {
    for (const layer of ['bogus', 'Reality', 3, true, {}]) {
      const e = errorOf(() => resolveNodeType({ node_type: 'Widget', layer }));
      expect(e.toBody()).toMatchObject({ code: 'invalid_field', field: 'layer' });
    }
    expect(errorOf(() => resolveNodeType({ node_type: 'Claim', layer: 'bogus' })).code).toBe('invalid_field');
  });
});

describe('canonicalNodeTypeName', () => {
  it('maps spellings to built-in names and other names to PascalCase', () => {
    expect(canonicalNodeTypeName('memory_policy')).toBe('MemoryPolicy');
    expect(canonicalNodeTypeName('my widget')).toBe('MyWidget');
  });
});
