import { fieldDefault, parseFields } from './prop-field';

describe('parseFields (the catalogue row syntax)', () => {
  it('reads kinds, nullability and modifiers', () => {
    expect(
      parseFields('a string; b number? 0-1; c boolean =false; d string[]; e object?; f string? (x|y); g number required; h number =0 server; i string? guarded; source'),
    ).toEqual([
      { name: 'a', kind: 'string', nullable: false },
      { name: 'b', kind: 'number', nullable: true, unit: true },
      { name: 'c', kind: 'boolean', nullable: false, default: false },
      { name: 'd', kind: 'string[]', nullable: false },
      { name: 'e', kind: 'object', nullable: true },
      { name: 'f', kind: 'string', nullable: true, enum: ['x', 'y'] },
      { name: 'g', kind: 'number', nullable: false, required: true },
      { name: 'h', kind: 'number', nullable: false, default: 0, serverMaintained: true },
      { name: 'i', kind: 'string', nullable: true, serverMaintained: true, guarded: true },
      { name: 'source', kind: 'string', nullable: true },
    ]);
    expect(parseFields('s string =candidate')[0].default).toBe('candidate');
  });

  it('refuses malformed rows so a typo cannot reach the catalogue', () => {
    expect(() => parseFields('a strin')).toThrow();
    expect(() => parseFields('a')).toThrow();
    expect(() => parseFields('a string; a number')).toThrow();
    expect(() => parseFields('a string bogus')).toThrow();
    expect(() => parseFields('Bad string')).toThrow();
  });
});

describe('fieldDefault', () => {
  it('follows §2.6: documented default, else [] for arrays, null when nullable, else "" / 0 / false / {}', () => {
    expect(fieldDefault({ name: 'x', kind: 'number', nullable: false, default: 7 })).toBe(7);
    expect(fieldDefault({ name: 'x', kind: 'string[]', nullable: true })).toEqual([]);
    expect(fieldDefault({ name: 'x', kind: 'string', nullable: true })).toBeNull();
    expect(fieldDefault({ name: 'x', kind: 'object', nullable: true })).toBeNull();
    expect(fieldDefault({ name: 'x', kind: 'string', nullable: false })).toBe('');
    expect(fieldDefault({ name: 'x', kind: 'number', nullable: false })).toBe(0);
    expect(fieldDefault({ name: 'x', kind: 'boolean', nullable: false })).toBe(false);
    expect(fieldDefault({ name: 'x', kind: 'object', nullable: false })).toEqual({});
  });

  it('returns a fresh copy of array and object defaults', () => {
    const f = { name: 'x', kind: 'string[]' as const, nullable: false, default: ['a'] };
    const a = fieldDefault(f) as string[];
    a.push('b');
    expect(fieldDefault(f)).toEqual(['a']);
  });
});
