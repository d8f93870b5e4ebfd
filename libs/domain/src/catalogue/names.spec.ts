import {
  canonicalCustomName,
  EDGE_TYPE_NAME_RE,
  isWellFormedUid,
  NODE_TYPE_NAME_RE,
  normaliseText,
  trigrams,
  trigramSimilarity,
  typeKey,
} from './names';

describe('typeKey', () => {
  it('removes _, - and spaces and lower-cases', () => {
    expect(typeKey('Has_Premise')).toBe('haspremise');
    expect(typeKey('has premise')).toBe('haspremise');
    expect(typeKey('HAS-PREMISE')).toBe('haspremise');
    expect(typeKey('hasPremise')).toBe('haspremise');
    expect(typeKey('open__question ')).toBe('openquestion');
  });
});

describe('canonicalCustomName (§3.2 PascalCase rule)', () => {
  it.each([
    ['BELONGS_TO', 'BelongsTo'],
    ['belongs_to', 'BelongsTo'],
    ['belongsTo', 'BelongsTo'],
    ['belongs to', 'BelongsTo'],
    ['Belongs-To', 'BelongsTo'],
    ['BelongsTo', 'BelongsTo'],
    ['ABC', 'Abc'],
    ['x', 'X'],
    ['research Topic', 'ResearchTopic'],
    ['Foo__bar', 'FooBar'],
    ['trailing_', 'Trailing'],
    ['my_2nd_thing', 'My2ndThing'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalCustomName(input)).toBe(expected);
  });

  it('keeps inner capitals of mixed-case words (only all-caps words are lowered)', () => {
    expect(canonicalCustomName('HTTPServer')).toBe('HTTPServer');
    expect(canonicalCustomName('iPhone_APP')).toBe('IPhoneApp');
  });

  it('never changes the comparison key', () => {
    for (const n of ['BELONGS_TO', 'belongsTo', 'my thing-2', 'HTTPServer']) expect(typeKey(canonicalCustomName(n))).toBe(typeKey(n));
  });
});

describe('type name syntax', () => {
  it('accepts node type names of 1–64 characters starting with a letter', () => {
    expect(NODE_TYPE_NAME_RE.test('W')).toBe(true);
    expect(NODE_TYPE_NAME_RE.test('Research topic_2-b')).toBe(true);
    expect(NODE_TYPE_NAME_RE.test('A' + 'b'.repeat(63))).toBe(true);
    expect(NODE_TYPE_NAME_RE.test('A' + 'b'.repeat(64))).toBe(false);
    expect(NODE_TYPE_NAME_RE.test('2Things')).toBe(false);
    expect(NODE_TYPE_NAME_RE.test('_Thing')).toBe(false);
    expect(NODE_TYPE_NAME_RE.test('Foo.Bar')).toBe(false);
    expect(NODE_TYPE_NAME_RE.test('')).toBe(false);
  });

  it('accepts edge type names of 1–100 characters starting with a letter', () => {
    expect(EDGE_TYPE_NAME_RE.test('A' + 'b'.repeat(99))).toBe(true);
    expect(EDGE_TYPE_NAME_RE.test('A' + 'b'.repeat(100))).toBe(false);
    expect(EDGE_TYPE_NAME_RE.test('has premise')).toBe(true);
    expect(EDGE_TYPE_NAME_RE.test('has/premise')).toBe(false);
  });
});

describe('isWellFormedUid (§1.4)', () => {
  it('accepts 1–128 characters from [A-Za-z0-9._:-]', () => {
    expect(isWellFormedUid('3f1c8a2e-6f0b-4c57-9a51-0f2d7b9e1a44')).toBe(true);
    expect(isWellFormedUid('a')).toBe(true);
    expect(isWellFormedUid('ns:item.1_x-Y')).toBe(true);
    expect(isWellFormedUid('a'.repeat(128))).toBe(true);
  });

  it('rejects non-strings, empty, too long and other characters', () => {
    expect(isWellFormedUid('')).toBe(false);
    expect(isWellFormedUid('a'.repeat(129))).toBe(false);
    expect(isWellFormedUid('a b')).toBe(false);
    expect(isWellFormedUid('a/b')).toBe(false);
    expect(isWellFormedUid('é')).toBe(false);
    expect(isWellFormedUid('abc\n')).toBe(false);
    expect(isWellFormedUid(123)).toBe(false);
    expect(isWellFormedUid(null)).toBe(false);
    expect(isWellFormedUid(undefined)).toBe(false);
    expect(isWellFormedUid(['a'])).toBe(false);
  });
});

describe('normaliseText (§4.2)', () => {
  it('lower-cases, trims and collapses whitespace', () => {
    expect(normaliseText('  Hello   WORLD  ')).toBe('hello world');
    expect(normaliseText('a\t\nb')).toBe('a b');
  });

  it('drops characters that are not letters, digits or spaces', () => {
    expect(normaliseText("O'Brien & Co.")).toBe('obrien co');
    expect(normaliseText('R2-D2!')).toBe('r2d2');
    expect(normaliseText('a - b')).toBe('a b');
    expect(normaliseText('!!!')).toBe('');
  });

  it('applies NFKC and keeps non-ASCII letters', () => {
    expect(normaliseText('ＡＢＣ')).toBe('abc');
    expect(normaliseText('\uFB01le')).toBe('file');
    expect(normaliseText('e\u0301cole')).toBe('école');
    expect(normaliseText('Müller')).toBe('müller');
    expect(normaliseText('東京 Tower')).toBe('東京 tower');
  });

  it('is idempotent', () => {
    for (const s of ['  A - b ', 'ＡＢＣ  x', "O'Neil"]) expect(normaliseText(normaliseText(s))).toBe(normaliseText(s));
  });
});

describe('trigramSimilarity (§4.2)', () => {
  it('pads each word with two leading spaces and one trailing space', () => {
    expect([...trigrams('ab')]).toEqual(['  a', ' ab', 'ab ']);
    expect([...trigrams('a b')].sort()).toEqual(['  a', '  b', ' a ', ' b '].sort());
    expect(trigrams('').size).toBe(0);
  });

  it('scores an exact normalised match 1.0', () => {
    expect(trigramSimilarity('Hello', 'hello!')).toBe(1);
    expect(trigramSimilarity('New  York', ' new york ')).toBe(1);
  });

  it('is the Jaccard index of the trigram sets', () => {
    // {"  a"," ab","abc","bc "} vs {"  a"," ab","abd","bd "}: 2 shared of 6.
    expect(trigramSimilarity('abc', 'abd')).toBeCloseTo(2 / 6, 12);
    // "hello" has 6 grams, all shared; "world" adds 6 more.
    expect(trigramSimilarity('hello', 'hello world')).toBeCloseTo(0.5, 12);
    expect(trigramSimilarity('abc', 'xyz')).toBe(0);
  });

  it('is symmetric and between 0 and 1', () => {
    const pairs: Array<[string, string]> = [
      ['Barack Obama', 'Obama'],
      ['Acme Corp', 'ACME Corporation'],
      ['kitten', 'sitting'],
    ];
    for (const [a, b] of pairs) {
      const s = trigramSimilarity(a, b);
      expect(s).toBe(trigramSimilarity(b, a));
      expect(s).toBeGreaterThan(0);
      expect(s).toBeLessThan(1);
    }
  });

  it('scores texts that normalise to nothing 0', () => {
    expect(trigramSimilarity('', '')).toBe(0);
    expect(trigramSimilarity('!!!', '???')).toBe(0);
    expect(trigramSimilarity('abc', '')).toBe(0);
  });

  it('cuts astral letters by code point', () => {
    const s = '\u{20000}\u{20001}';
    expect([...trigrams(s)]).toEqual(['  \u{20000}', ' \u{20000}\u{20001}', '\u{20000}\u{20001} ']);
  });
});
