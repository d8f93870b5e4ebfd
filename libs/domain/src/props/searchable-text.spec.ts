import { getNodeType } from '../catalogue/node-types';
import { validateNodeProps } from './validate-node-props';
import { searchableText } from './searchable-text';

describe('searchableText', () => {
  it('joins every string and string[] value of a built-in in table order, skipping numbers, booleans and nulls', () => {
    const def = getNodeType('Hypothesis')!;
    const props = validateNodeProps('Hypothesis', def, {
      statement: 'Coffee improves focus',
      hypothesis_type: 'causal',
      novelty: 0.4,
      predicted_observations: ['faster reaction', '', 'fewer errors'],
      source: 'document',
    }, { mode: 'create' });
    expect(searchableText(def, props)).toBe('Coffee improves focus\ncausal\nfaster reaction\nfewer errors\ndocument');
  });

  it('leaves out the _type tag and object fields', () => {
    const def = getNodeType('Entity')!;
    const props = validateNodeProps('Entity', def, { canonical_name: 'Acme', attributes: { motto: 'hidden' } }, { mode: 'create' });
    expect(searchableText(def, props)).toBe('Acme');
  });

  it('takes every top-level string or string array of a custom type', () => {
    const props = { _type: 'Recipe', title: 'Soup', steps: ['boil', 3, 'serve'], servings: 4, meta: { chef: 'nested' }, note: null };
    expect(searchableText(null, props)).toBe('Soup\nboil\nserve');
  });

  it('is empty for no props', () => {
    expect(searchableText(null, null)).toBe('');
    expect(searchableText(getNodeType('Claim')!, { _type: 'Claim' })).toBe('');
  });
});
