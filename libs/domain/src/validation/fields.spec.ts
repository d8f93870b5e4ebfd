import { MAX_OFFSET, characterCount, readPage, readString } from './fields';

describe('field readers', () => {
  it('count characters as code points: an emoji is one character', () => {
    expect(characterCount('abc')).toBe(3);
    expect(characterCount('😀'.repeat(600))).toBe(600);
    expect(characterCount('a😀b')).toBe(3);
    // a lone surrogate still counts as one
    expect(characterCount('\ud83d')).toBe(1);
    expect(readString({ label: '😀'.repeat(1000) }, 'label', { max: 1000 })).toHaveLength(2000);
    expect(() => readString({ label: '😀'.repeat(1001) }, 'label', { max: 1000 })).toThrow(expect.objectContaining({ code: 'invalid_field' }));
    expect(() => readString({ label: 'x'.repeat(1001) }, 'label', { max: 1000 })).toThrow(expect.objectContaining({ code: 'invalid_field' }));
  });

  it('clamp limit to the route maximum and offset to what every store takes as an integer', () => {
    expect(readPage({ limit: 5000, offset: 1e20 }, { limit: 50, max: 1000 })).toEqual({ limit: 1000, offset: MAX_OFFSET });
    expect(readPage({}, { limit: 50, max: 1000 })).toEqual({ limit: 50, offset: 0 });
    expect(() => readPage({ offset: -1 }, { limit: 50, max: 1000 })).toThrow(expect.objectContaining({ code: 'invalid_field', context: { field: 'offset' } }));
    expect(() => readPage({ limit: 1.5 }, { limit: 50, max: 1000 })).toThrow(expect.objectContaining({ code: 'invalid_field', context: { field: 'limit' } }));
  });
});
