import { FixedClock } from '@strata/domain/time';
import { codeOf } from './testing/error-code';
import { AccountsDirectory, CredentialChange, DirectoryKey, DirectoryMembership } from './accounts-directory.port';
import { CredentialResolver } from './credential-resolver';
import { generateApiKeySecret, sha256Hex } from './tokens/secrets';
import { TokenService } from './tokens/token.service';

class FakeDirectory implements AccountsDirectory {
  keys = new Map<string, DirectoryKey>();
  members = new Map<string, DirectoryMembership[]>();
  plans = new Map<string, 'free' | 'pro'>();
  calls = 0;
  private listeners: ((c: CredentialChange) => void)[] = [];
  keyBySecretHash(h: string) {
    this.calls++;
    return this.keys.get(h) ?? null;
  }
  membershipsOf(u: string) {
    this.calls++;
    return this.members.get(u) ?? [];
  }
  planOf(o: string) {
    return this.plans.get(o) ?? 'free';
  }
  onCredentialChange(l: (c: CredentialChange) => void) {
    this.listeners.push(l);
  }
  change(c: CredentialChange) {
    for (const l of this.listeners) l(c);
  }
}

function setup() {
  const clock = new FixedClock(1_800_000_000);
  const dir = new FakeDirectory();
  const tokens = new TokenService('s'.repeat(40), 900, 86400, clock);
  const resolver = new CredentialResolver(dir, tokens, clock);
  const secret = generateApiKeySecret();
  const key: DirectoryKey = { key_id: 'k1', org_id: 'o1', scopes: ['read'], expires_at: null, revoked_at: null, overlap_until: null, agent_id: null, space_uids: null, project_uids: null };
  dir.keys.set(sha256Hex(secret), key);
  return { clock, dir, tokens, resolver, secret, key };
}

describe('CredentialResolver: API keys', () => {
  it('resolves a key once, then answers from the cache (same frozen context)', () => {
    const { dir, resolver, secret } = setup();
    const a = resolver.resolve(secret);
    const b = resolver.resolve(secret);
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
    expect(dir.calls).toBe(1);
    expect(a).toMatchObject({ org_id: 'o1', credential: 'api_key', api_key_id: 'k1', principal: { kind: 'api_key', id: 'k1' }, scopes: ['read'], plan: 'free' });
  });

  it('an agent-bound key acts for the agent (attribution) but its principal is the key itself', () => {
    const { dir, resolver } = setup();
    for (const agent of ['ag', 'system', 'u-owner']) {
      const s = generateApiKeySecret();
      dir.keys.set(sha256Hex(s), { key_id: `k-${agent}`, org_id: 'o1', scopes: ['read', 'write'], expires_at: null, revoked_at: null, overlap_until: null, agent_id: agent, space_uids: null, project_uids: null });
      expect(resolver.resolve(s)).toMatchObject({ principal: { kind: 'api_key', id: `k-${agent}` }, bound_agent_id: agent, api_key_id: `k-${agent}` });
    }
  });

  it('unknown keys are invalid_token', () => {
    const { resolver } = setup();
    expect(codeOf(() => resolver.resolve(generateApiKeySecret()))).toBe('invalid_token');
  });

  it('revocation evicts the cached key at once', () => {
    const { dir, resolver, secret, key } = setup();
    resolver.resolve(secret);
    key.revoked_at = 1;
    expect(resolver.resolve(secret)).toBeDefined(); // still cached: nobody said anything
    dir.change({ kind: 'key', key_id: 'k1' });
    expect(codeOf(() => resolver.resolve(secret))).toBe('invalid_token');
  });

  it('a cached key stops at its expiry (403 api_key_expired) and at the end of its rotation overlap (401)', () => {
    const { clock, dir, resolver, secret, key } = setup();
    key.expires_at = clock.now() + 10;
    resolver.resolve(secret);
    clock.advance(10);
    expect(codeOf(() => resolver.resolve(secret))).toBe('api_key_expired');

    const s2 = generateApiKeySecret();
    dir.keys.set(sha256Hex(s2), { ...key, key_id: 'k3', expires_at: null, overlap_until: clock.now() + 5 });
    expect(resolver.resolve(s2).api_key_id).toBe('k3');
    clock.advance(5);
    expect(codeOf(() => resolver.resolve(s2))).toBe('invalid_token');
  });

  it('a plan change evicts the organization’s cached contexts', () => {
    const { dir, resolver, secret } = setup();
    expect(resolver.resolve(secret).plan).toBe('free');
    dir.plans.set('o1', 'pro');
    dir.change({ kind: 'org', org_id: 'o1' });
    expect(resolver.resolve(secret).plan).toBe('pro');
  });
});

describe('CredentialResolver: user JWTs', () => {
  it('verifies once, caches per token and X-Org-Id, defaults to the earliest membership', () => {
    const { dir, resolver, tokens } = setup();
    dir.members.set('u1', [
      { org_id: 'o1', role: 'viewer', plan: 'free' },
      { org_id: 'o2', role: 'owner', plan: 'pro' },
    ]);
    const { access_token } = tokens.signAccess('u1');
    const d = resolver.resolve(access_token);
    expect(d).toMatchObject({ org_id: 'o1', role: 'viewer', scopes: ['read'], credential: 'user_jwt', principal: { kind: 'user', id: 'u1' } });
    expect(resolver.resolve(access_token, 'o2')).toMatchObject({ org_id: 'o2', role: 'owner', scopes: ['read', 'write'], plan: 'pro' });
    const calls = dir.calls;
    resolver.resolve(access_token);
    resolver.resolve(access_token, 'o2');
    expect(dir.calls).toBe(calls);
    expect(codeOf(() => resolver.resolve(access_token, 'o3'))).toBe('forbidden');
  });

  it('expired tokens answer token_expired, cached or not', () => {
    const { clock, dir, resolver, tokens } = setup();
    dir.members.set('u1', [{ org_id: 'o1', role: 'owner', plan: 'free' }]);
    const { access_token } = tokens.signAccess('u1');
    resolver.resolve(access_token);
    clock.advance(900);
    expect(codeOf(() => resolver.resolve(access_token))).toBe('token_expired');
    const other = new CredentialResolver(dir, tokens, clock);
    expect(codeOf(() => other.resolve(access_token))).toBe('token_expired');
  });

  it('bad signatures and garbage are invalid_token', () => {
    const { resolver, clock } = setup();
    const foreign = new TokenService('x'.repeat(40), 900, 1, clock).signAccess('u1').access_token;
    expect(codeOf(() => resolver.resolve(foreign))).toBe('invalid_token');
    expect(codeOf(() => resolver.resolve('abc.def.ghi'))).toBe('invalid_token');
  });

  it('a membership change evicts the user’s cached contexts', () => {
    const { dir, resolver, tokens } = setup();
    dir.members.set('u1', [{ org_id: 'o1', role: 'member', plan: 'free' }]);
    const { access_token } = tokens.signAccess('u1');
    expect(resolver.resolve(access_token, 'o1').role).toBe('member');
    dir.members.set('u1', []);
    dir.change({ kind: 'user', user_id: 'u1' });
    expect(codeOf(() => resolver.resolve(access_token, 'o1'))).toBe('forbidden');
    expect(resolver.resolve(access_token).org_id).toBe('');
  });
});
