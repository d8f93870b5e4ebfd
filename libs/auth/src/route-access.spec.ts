import { bearerTokenOf } from './route-access';
import { codeOf } from './testing/error-code';

describe('bearerTokenOf', () => {
  it('returns the token of a Bearer header (scheme in any case, spaces around)', () => {
    expect(bearerTokenOf('Bearer abc')).toBe('abc');
    expect(bearerTokenOf('bearer  strata_x ')).toBe('strata_x');
  });

  it('no header or another scheme: 401 unauthorized', () => {
    for (const h of [undefined, '', 'Basic dXNlcjpwYXNz', 'Token abc', 'Bearerabc', ['Bearer a']])
      expect([h, codeOf(() => bearerTokenOf(h))]).toEqual([h, 'unauthorized']);
  });

  it('a Bearer header without exactly one token: 401 invalid_token (malformed token)', () => {
    for (const h of ['Bearer x y', 'Bearer', 'Bearer ', 'Bearer a\tb', 'bearer  a b c'])
      expect([h, codeOf(() => bearerTokenOf(h))]).toEqual([h, 'invalid_token']);
  });
});
