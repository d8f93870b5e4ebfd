import {
  buildPointFilter,
  collectionName,
  denseVectorOf,
  ownedCollections,
  fromQdrantDistance,
  pointId,
  toPortScore,
  toQdrantDistance,
  toQdrantScoreThreshold,
  uuidV5,
} from './qdrant-translation';

describe('qdrant translation', () => {
  describe('point ids', () => {
    it('implements RFC 4122 v5 (known vector: DNS namespace, "www.example.com")', () => {
      expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
    });

    it('maps org:uid to a deterministic, version-5 UUID that differs across orgs', () => {
      const id = pointId('org-1', 'node-1');
      expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(pointId('org-1', 'node-1')).toBe(id);
      expect(pointId('org-2', 'node-1')).not.toBe(id);
      expect(pointId('a:b', 'c')).not.toBe(pointId('a', 'b:c'));
    });
  });

  it('names one collection per org with safe characters and no collisions after slugging', () => {
    const a = collectionName('Acme Corp/EU');
    expect(a).toMatch(/^strata_acme-corp-eu_[0-9a-f]{16}$/);
    expect(collectionName('acme corp eu')).not.toBe(collectionName('acme-corp-eu'));
    expect(collectionName('ü', 'p')).toMatch(/^p_org_[0-9a-f]{16}$/);
    expect(collectionName('x'.repeat(300)).length).toBeLessThan(80);
  });

  it('maps metrics both ways', () => {
    expect(toQdrantDistance('cosine')).toBe('Cosine');
    expect(toQdrantDistance('dot')).toBe('Dot');
    expect(toQdrantDistance('euclidean')).toBe('Euclid');
    expect(fromQdrantDistance('Cosine')).toBe('cosine');
    expect(fromQdrantDistance('Dot')).toBe('dot');
    expect(fromQdrantDistance('Euclid')).toBe('euclidean');
    expect(() => fromQdrantDistance('Manhattan')).toThrow();
  });

  it('converts scores: cosine and dot as is, euclidean distance to 1/(1+d)', () => {
    expect(toPortScore('cosine', 0.8)).toBe(0.8);
    expect(toPortScore('dot', -3)).toBe(-3);
    expect(toPortScore('euclidean', 0)).toBe(1);
    expect(toPortScore('euclidean', 3)).toBe(0.25);
  });

  it('converts thresholds, inverting for euclidean distance', () => {
    expect(toQdrantScoreThreshold('cosine', undefined)).toBeUndefined();
    expect(toQdrantScoreThreshold('cosine', 0.7)).toBe(0.7);
    expect(toQdrantScoreThreshold('dot', -2)).toBe(-2);
    expect(toQdrantScoreThreshold('euclidean', 0.25)).toBe(3);
    expect(toQdrantScoreThreshold('euclidean', 1)).toBe(0);
    expect(toQdrantScoreThreshold('euclidean', 0)).toBeUndefined();
    expect(toQdrantScoreThreshold('euclidean', -1)).toBeUndefined();
    expect(toQdrantScoreThreshold('euclidean', 1.5)).toBeNull();
  });

  it('builds payload filters: org always, types any-of, excluded types, layer', () => {
    expect(buildPointFilter({ org: 'o' })).toEqual({ must: [{ key: 'org', match: { value: 'o' } }] });
    expect(
      buildPointFilter({ org: 'o', node_types: ['Goal', 'Claim'], exclude_node_types: ['Chunk'], layer: 'intent' }),
    ).toEqual({
      must: [
        { key: 'org', match: { value: 'o' } },
        { key: 'node_type', match: { any: ['Goal', 'Claim'] } },
        { key: 'layer', match: { value: 'intent' } },
      ],
      must_not: [{ key: 'node_type', match: { any: ['Chunk'] } }],
    });
    expect(buildPointFilter({ org: 'o', node_types: [], exclude_node_types: [] })).toEqual({
      must: [{ key: 'org', match: { value: 'o' } }],
    });
  });

  describe('collections a prefix owns', () => {
    it('keeps only the prefix’s collections, sorted, and never a name that merely starts with the same letters', () => {
      const mine = [collectionName('org-b'), collectionName('org-a')];
      expect(ownedCollections(['other_x', ...mine, 'stratagem_y', 'strata'])).toEqual([...mine].sort());
    });

    it('follows a custom prefix', () => {
      const name = collectionName('org-1', 'test_run');
      expect(ownedCollections([name, collectionName('org-1')], 'test_run')).toEqual([name]);
    });
  });

  describe('stored vectors', () => {
    it('hands out a single dense vector and nothing else (named, sparse or absent)', () => {
      expect(denseVectorOf([0.5, -1])).toEqual([0.5, -1]);
      expect(denseVectorOf({ text: [1, 2] })).toBeUndefined();
      expect(denseVectorOf([[1, 2]])).toBeUndefined();
      expect(denseVectorOf(null)).toBeUndefined();
    });
  });
});
