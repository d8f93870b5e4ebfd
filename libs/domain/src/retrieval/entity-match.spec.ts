import { normaliseText } from '../catalogue/names';
import { TrigramMatcher, pickAliasMatch, rankFuzzy } from './entity-match';

describe('pickAliasMatch', () => {
  it('takes the highest alias score, then the oldest node, then the smaller uid', () => {
    expect(pickAliasMatch([])).toBeNull();
    const c = [
      { canonical_uid: 'young', score: 0.9, node_created_at: 5 },
      { canonical_uid: 'old', score: 0.9, node_created_at: 1 },
      { canonical_uid: 'weak', score: 0.5, node_created_at: 0 },
    ];
    expect(pickAliasMatch(c)!.canonical_uid).toBe('old');
    expect(pickAliasMatch([{ canonical_uid: 'b', score: 1, node_created_at: 1 }, { canonical_uid: 'a', score: 1, node_created_at: 1 }])!.canonical_uid).toBe('a');
  });
});

describe('TrigramMatcher', () => {
  it('scores an exact normalised match 1.0 regardless of case, accents width and punctuation', () => {
    const m = new TrigramMatcher('Café  Société!');
    expect(m.score('café société')).toBe(1);
    expect(m.score('CAFÉ SOCIÉTÉ')).toBe(1);
  });

  it('scores trigram Jaccard similarity for near matches', () => {
    const m = new TrigramMatcher('ab');
    // "  ab " → {"  a", " ab", "ab "}; "  ac " → {"  a", " ac", "ac "}: 1 shared of 5
    expect(m.score('ac')).toBeCloseTo(1 / 5, 12);
    expect(new TrigramMatcher('Barack Obama').score('Barak Obama')).toBeGreaterThan(0.5);
    expect(new TrigramMatcher('Barack Obama').score('Angela Merkel')).toBeLessThan(0.1);
  });
});

describe('rankFuzzy', () => {
  it('scores a node by its best text, drops low scores and sorts by score then uid', () => {
    const m = new TrigramMatcher('International Business Machines');
    const t = (uid: string, text: string) => ({ uid, text, norm: normaliseText(text) });
    const r = rankFuzzy(m, [t('ibm', 'IBM'), t('ibm', 'International Business Machine'), t('other', 'Microsoft'), t('z', 'International Business Machines'), t('a', 'international business machines')], 0.3);
    expect(r.map((x) => x.uid)).toEqual(['a', 'z', 'ibm']);
    expect(r[2].matched_text).toBe('International Business Machine');
    expect(r[0].score).toBe(1);
  });
});
