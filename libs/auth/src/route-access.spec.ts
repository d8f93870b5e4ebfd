import { AuthContext } from './auth-context';
import { assertRouteAccess, bearerTokenOf } from './route-access';
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

describe('assertRouteAccess on writing routes', () => {
  const ctx = (over: Partial<AuthContext>): AuthContext =>
    ({ org_id: 'o1', principal: { type: 'user', id: 'u1' }, credential: 'user_jwt', user_id: 'u1', api_key_id: null, role: 'viewer', scopes: ['read'], bound_agent_id: null, space_uids: null, project_uids: null, plan: 'free', ...over }) as AuthContext;
  const route = (access?: 'in_spaces' | 'write') => ({ tag: 'api_key_or_jwt' as const, access });

  it('lets an org viewer reach a Space-judged write, and no other', () => {
    expect(() => assertRouteAccess(route('in_spaces'), 'POST', ctx({}))).not.toThrow();
    expect(codeOf(() => assertRouteAccess(route(), 'POST', ctx({})))).toBe('read_only_credential');
  });

  it('keeps a read-only API key read-only on a Space-judged write', () => {
    const key = ctx({ credential: 'api_key', user_id: null, api_key_id: 'k1', role: null });
    expect(codeOf(() => assertRouteAccess(route('in_spaces'), 'POST', key))).toBe('read_only_credential');
  });
});
