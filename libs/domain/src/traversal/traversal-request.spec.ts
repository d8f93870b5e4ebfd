import { CHAIN_REASONING_EDGE_TYPES, readTraversalRequest } from './traversal-request';

const start = '00000000-0000-4000-8000-000000000001';

describe('readTraversalRequest', () => {
  it('applies the per-action defaults of REFERENCE §6.1', () => {
    const n = readTraversalRequest('neighborhood', { start_uid: start });
    expect(n).toMatchObject({ max_depth: 2, direction: 'both', max_nodes: 500, include_provenance: false, k: 3, max_hops: 8 });
    expect(n.rules).toEqual({});
    expect(readTraversalRequest('chain', { start_uid: start }).max_depth).toBe(5);
    expect([...readTraversalRequest('chain', { start_uid: start }).rules.edge_types!]).toEqual([...CHAIN_REASONING_EDGE_TYPES]);
  });

  it('clamps counts above their caps and canonicalises edge type spellings', () => {
    const r = readTraversalRequest('top_k_paths', {
      start_uid: start,
      end_uid: start,
      max_depth: 40,
      max_nodes: 50_000,
      k: 99,
      max_hops: 30,
      edge_types: 'has_premise, SUPPORTS',
      exclude_edge_types: ['related-to'],
    });
    expect(r).toMatchObject({ max_depth: 16, max_nodes: 10_000, k: 25, max_hops: 16 });
    expect([...r.rules.edge_types!]).toEqual(['HasPremise', 'Supports']);
    expect([...r.rules.exclude_edge_types!]).toEqual(['RelatedTo']);
  });

  it('names the field of every bad value', () => {
    const bad = (body: Record<string, unknown>, code: string, field: string) =>
      expect(() => readTraversalRequest('path', { start_uid: start, end_uid: start, ...body })).toThrow(expect.objectContaining({ code, context: expect.objectContaining({ field }) }));
    bad({ start_uid: undefined, uid: start }, 'missing_field', 'start_uid');
    bad({ start_uid: 'a b' }, 'invalid_uid', 'start_uid');
    bad({ end_uid: undefined }, 'missing_field', 'end_uid');
    bad({ max_depth: 0 }, 'invalid_field', 'max_depth');
    bad({ max_depth: 1.5 }, 'invalid_field', 'max_depth');
    bad({ direction: 'sideways' }, 'invalid_field', 'direction');
    bad({ weight_threshold: -0.1 }, 'invalid_field', 'weight_threshold');
    bad({ edge_types: [3] }, 'invalid_field', 'edge_types');
    bad({ max_cost: -1 }, 'invalid_field', 'max_cost');
    bad({ include_provenance: 'yes' }, 'invalid_field', 'include_provenance');
  });
});
