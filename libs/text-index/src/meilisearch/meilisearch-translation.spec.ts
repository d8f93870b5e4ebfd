import {
  MEILI_INDEX_SETTINGS,
  buildSearchFilter,
  decodeDocumentId,
  encodeDocumentId,
  mergeTermHits,
  perTermLimit,
  quoteFilterValue,
  searchTerms,
  toMeiliDocument,
  withTieBreakRules,
} from './meilisearch-translation';

describe('meilisearch translation', () => {
  describe('document ids', () => {
    it('uses only the characters Meilisearch allows and round-trips', () => {
      for (const [org, uid] of [
        ['org-1', 'n_1'],
        ['ørg with spaces', 'uid:with:colons'],
        ['a', 'ü/\\"\'*?#'],
        ['', 'x'],
      ]) {
        const id = encodeDocumentId(org, uid);
        expect(id).toMatch(/^[A-Za-z0-9_-]+$/);
        expect(decodeDocumentId(id)).toEqual({ org, uid });
      }
    });

    it('is injective where naive joining is not', () => {
      expect(encodeDocumentId('a:b', 'c')).not.toBe(encodeDocumentId('a', 'b:c'));
      expect(encodeDocumentId('o', 'u')).toBe(encodeDocumentId('o', 'u'));
    });

    it('refuses ids over 511 bytes', () => {
      expect(() => encodeDocumentId('o', 'x'.repeat(400))).toThrow(/511/);
    });
  });

  it('maps a TextDocument to analysed, stemmed and folded fields', () => {
    const d = toMeiliDocument({
      org: 'o',
      uid: 'u',
      node_type: 'Claim',
      layer: 'epistemic',
      label: 'Running Cafés',
      summary: 'Connections were DROPPED',
      body: 'naïve—approach',
    });
    expect(d).toEqual({
      id: encodeDocumentId('o', 'u'),
      org: 'o',
      uid: 'u',
      node_type: 'Claim',
      layer: 'epistemic',
      label: 'run cafe',
      summary: 'connect were drop',
      body: 'naiv approach',
      salience: 0.5,
    });
    expect(toMeiliDocument({ org: 'o', uid: 'u', node_type: 'Claim', layer: 'x', label: '', summary: '', body: '', salience: 0.9 }).salience).toBe(0.9);
  });

  describe('filters', () => {
    it('quotes values and escapes double quotes', () => {
      expect(quoteFilterValue('plain')).toBe('"plain"');
      expect(quoteFilterValue('say "hi"')).toBe('"say \\"hi\\""');
      expect(quoteFilterValue("it's")).toBe('"it\'s"');
      expect(quoteFilterValue('a\\b')).toBe('"a\\b"');
      expect(quoteFilterValue('x" OR org = "other')).toBe('"x\\" OR org = \\"other"');
    });

    it('refuses values the filter grammar cannot express exactly', () => {
      expect(() => quoteFilterValue('ends with \\')).toThrow();
      expect(() => quoteFilterValue('a\\"b')).toThrow();
    });

    it('always scopes to the organization and ANDs every filter', () => {
      expect(buildSearchFilter({ org: 'o1' })).toBe('org = "o1"');
      expect(
        buildSearchFilter({
          org: 'o1',
          node_types: ['Goal', 'Claim'],
          exclude_node_types: ['Document', 'Chunk'],
          layer: 'intent',
          uids: ['a', 'b"c'],
        }),
      ).toBe(
        'org = "o1" AND node_type IN ["Goal", "Claim"] AND node_type NOT IN ["Document", "Chunk"] AND layer = "intent" AND uid IN ["a", "b\\"c"]',
      );
      expect(buildSearchFilter({ org: 'o1', node_types: [], exclude_node_types: [] })).toBe('org = "o1"');
    });
  });

  describe('query terms', () => {
    it('keeps only analysed letter/digit terms, deduplicated', () => {
      expect(searchTerms('Running runs "RUN" café -cafe NEAR(x*) a:b')).toEqual(['run', 'cafe', 'near', 'x', 'a', 'b']);
      expect(searchTerms('  "*-:()  ')).toEqual([]);
      expect(searchTerms('q'.repeat(500))).toEqual([]);
      expect(searchTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(16);
    });

    it('fetches head-room per term, bounded by the index maxTotalHits', () => {
      expect(perTermLimit(1)).toBe(50);
      expect(perTermLimit(100)).toBe(300);
      expect(perTermLimit(1000)).toBe(3000);
      expect(perTermLimit(100_000)).toBe(MEILI_INDEX_SETTINGS.pagination.maxTotalHits);
    });
  });

  it('merges per-term hits by summing scores (OR), then uid, with min_score and limit', () => {
    const merged = mergeTermHits(
      [
        [
          { uid: 'a', _rankingScore: 0.9 },
          { uid: 'b', _rankingScore: 0.5 },
        ],
        [
          { uid: 'b', _rankingScore: 0.6 },
          { uid: 'c', _rankingScore: 0.9 },
        ],
      ],
      10,
    );
    expect(merged).toEqual([
      { uid: 'b', score: 1.1, salience: 0.5 },
      { uid: 'a', score: 0.9, salience: 0.5 },
      { uid: 'c', score: 0.9, salience: 0.5 },
    ]);
    expect(mergeTermHits([[{ uid: 'a', _rankingScore: 0.2 }, { uid: 'b', _rankingScore: 0.7 }]], 10, 0.5)).toEqual([
      { uid: 'b', score: 0.7, salience: 0.5 },
    ]);
    expect(mergeTermHits([[{ uid: 'a', _rankingScore: 0.2 }, { uid: 'b', _rankingScore: 0.7 }]], 1)).toEqual([
      { uid: 'b', score: 0.7, salience: 0.5 },
    ]);
  });

  it('breaks ties on the summed score by salience (descending), then uid', () => {
    const merged = mergeTermHits(
      [
        [
          { uid: 'a', salience: 0.2, _rankingScore: 0.5 },
          { uid: 'b', salience: 0.9, _rankingScore: 0.5 },
          { uid: 'c', salience: 0.2, _rankingScore: 0.5 },
          { uid: 'd', _rankingScore: 0.5 },
        ],
        [{ uid: 'a', salience: 0.2, _rankingScore: 0 }],
      ],
      10,
    );
    expect(merged.map((h) => h.uid)).toEqual(['b', 'd', 'a', 'c']);
    // each hit carries the salience the order used (the default where a document has none)
    expect(merged.map((h) => h.salience)).toEqual([0.9, 0.5, 0.2, 0.2]);
  });

  it('appends the tie-break ranking rules after the engine rules, once', () => {
    const engine = ['words', 'typo', 'proximity', 'attribute', 'sort', 'exactness'];
    expect(withTieBreakRules(engine)).toEqual([...engine, 'salience:desc', 'uid:asc']);
    expect(withTieBreakRules(withTieBreakRules(engine))).toEqual([...engine, 'salience:desc', 'uid:asc']);
  });

  it('orders searchable attributes label > summary > body and makes filter fields filterable', () => {
    expect(MEILI_INDEX_SETTINGS.searchableAttributes).toEqual(['label', 'summary', 'body']);
    expect([...MEILI_INDEX_SETTINGS.filterableAttributes].sort()).toEqual(['layer', 'node_type', 'org', 'uid']);
  });
});
