import { deriveSummary, SUMMARY_SOURCE_FIELDS, truncateSummary } from './derive-summary';

describe('deriveSummary (§2.7)', () => {
  it('searches the fields in the documented order', () => {
    expect(SUMMARY_SOURCE_FIELDS).toEqual([
      'content',
      'description',
      'statement',
      'text',
      'definition',
      'expression',
      'name',
      'title',
      'principle',
      'canonical_name',
      'full_name',
      'question',
      'focus_summary',
      'action_name',
    ]);
    // With every field set from position i onwards, field i wins.
    SUMMARY_SOURCE_FIELDS.forEach((field, i) => {
      const props = Object.fromEntries(SUMMARY_SOURCE_FIELDS.slice(i).map((f) => [f, `from ${f}`]));
      expect(deriveSummary(props, 'label')).toBe(`from ${field}`);
    });
  });

  it('skips empty, blank and non-string values', () => {
    expect(deriveSummary({ content: '', description: '   ', statement: ['x'], text: 5, name: 'Named' }, 'L')).toBe('Named');
  });

  it('falls back to the label', () => {
    expect(deriveSummary({ _type: 'Goal', progress: 0.5 }, '  Ship it  ')).toBe('Ship it');
    expect(deriveSummary({}, 'L')).toBe('L');
    expect(deriveSummary(null, 'L')).toBe('L');
    expect(deriveSummary(undefined, 'L')).toBe('L');
  });

  it('ignores fields outside the list, such as summary or label', () => {
    expect(deriveSummary({ summary: 'argument summary', label: 'control label' }, 'Node')).toBe('Node');
  });

  it('trims the chosen text', () => {
    expect(deriveSummary({ content: '\n  Water boils.  \t' }, 'L')).toBe('Water boils.');
  });

  it('keeps text of exactly 500 characters whole', () => {
    const s = 'a'.repeat(500);
    expect(deriveSummary({ content: s }, 'L')).toBe(s);
  });

  it('cuts longer text to 500 characters ending with …', () => {
    const out = deriveSummary({ content: 'b'.repeat(499) + 'cd' }, 'L');
    expect(out).toHaveLength(500);
    expect(out).toBe('b'.repeat(499) + '…');
    // Trimming happens before the length check.
    expect(deriveSummary({ content: '  ' + 'a'.repeat(500) + '  ' }, 'L')).toBe('a'.repeat(500));
  });

  it('cuts a long label the same way', () => {
    expect(deriveSummary({}, 'x'.repeat(1000))).toBe('x'.repeat(499) + '…');
  });

  it('counts characters by code point so astral characters are never split', () => {
    const emoji = '😀'.repeat(500);
    expect(deriveSummary({ content: emoji }, 'L')).toBe(emoji);
    const cut = deriveSummary({ content: '😀'.repeat(501) }, 'L');
    expect(Array.from(cut)).toHaveLength(500);
    expect(cut).toBe('😀'.repeat(499) + '…');
  });

  it('truncateSummary takes a custom limit', () => {
    expect(truncateSummary('abcdef', 4)).toBe('abc…');
    expect(truncateSummary('abcd', 4)).toBe('abcd');
  });
});
