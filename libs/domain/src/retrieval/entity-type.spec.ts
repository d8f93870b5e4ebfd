import { planEntityCreation } from './entity-type';

describe('planEntityCreation', () => {
  it('maps the six known entity_type values case-insensitively and drops the field', () => {
    expect(planEntityCreation('Ada', { entity_type: 'PERSON', description: 'x' })).toEqual({
      node_type: 'Person',
      props: { description: 'x' },
      defaults: { full_name: 'Ada' },
    });
    expect(planEntityCreation('Gravity', { entity_type: 'concept' })).toEqual({ node_type: 'Concept', props: {}, defaults: { name: 'Gravity' } });
    for (const [t, n] of [['organization', 'Organization'], ['nation', 'Nation'], ['event', 'Event'], ['place', 'Place']])
      expect(planEntityCreation('X', { entity_type: t }).node_type).toBe(n);
  });

  it('makes an Entity that keeps an unknown entity_type, or "other" when none is given', () => {
    expect(planEntityCreation('Widget', { entity_type: 'product' })).toEqual({
      node_type: 'Entity',
      props: { entity_type: 'product' },
      defaults: { entity_type: 'other', canonical_name: 'Widget' },
    });
    expect(planEntityCreation('Thing', undefined)).toEqual({ node_type: 'Entity', props: {}, defaults: { entity_type: 'other', canonical_name: 'Thing' } });
  });

  it('rejects non-object props and a non-string entity_type', () => {
    expect(() => planEntityCreation('X', [])).toThrow(expect.objectContaining({ code: 'invalid_props' }));
    expect(() => planEntityCreation('X', { entity_type: 3 })).toThrow(expect.objectContaining({ code: 'invalid_props', context: { field: 'props.entity_type' } }));
  });
});
