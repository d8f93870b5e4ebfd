import { requireSharedJwtSecret } from './jwt-secret';
import { apiKeyDisplayPrefix, base62, formatRefreshToken, generateApiKeySecret, generateRefreshSecret, isApiKeyToken, parseRefreshToken, sameHex, sha256Hex } from './secrets';

describe('secrets', () => {
  it('API keys: strata_ + 43 base62 characters (256 random bits), all different', () => {
    const keys = new Set(Array.from({ length: 1000 }, generateApiKeySecret));
    expect(keys.size).toBe(1000);
    for (const k of keys) expect(k).toMatch(/^strata_[0-9A-Za-z]{43}$/);
    expect(isApiKeyToken([...keys][0])).toBe(true);
    expect(isApiKeyToken('eyJhbGciOi')).toBe(false);
    expect(apiKeyDisplayPrefix('strata_abcdefghij')).toBe('strata_abcdef');
  });
  it('base62 encodes big numbers exactly', () => {
    expect(base62(Buffer.from([0]), 3)).toBe('000');
    expect(base62(Buffer.from([61]), 1)).toBe('z');
    expect(base62(Buffer.from([62]), 2)).toBe('10');
    expect(base62(Buffer.alloc(32, 0xff), 43)).toHaveLength(43);
  });
  it('refresh tokens round-trip; anything else does not parse', () => {
    const s = generateRefreshSecret();
    const t = formatRefreshToken('1d7f0562-99df-4b27-9efe-5cc00b6d645c', s);
    expect(parseRefreshToken(t)).toEqual({ token_id: '1d7f0562-99df-4b27-9efe-5cc00b6d645c', secret: s });
    for (const bad of ['', 'x.y', `nope.${s}`, `1d7f0562-99df-4b27-9efe-5cc00b6d645c.${s}!`]) expect(parseRefreshToken(bad)).toBeNull();
  });
  it('hash comparison', () => {
    expect(sameHex(sha256Hex('a'), sha256Hex('a'))).toBe(true);
    expect(sameHex(sha256Hex('a'), sha256Hex('b'))).toBe(false);
    expect(sameHex('ab', 'abcd')).toBe(false);
  });
});

describe('JWT secret in servers mode', () => {
  it('must be configured: replicas cannot share a secret generated into one data dir', () => {
    expect(() => requireSharedJwtSecret(null)).toThrow(/STRATA_STORE=servers needs STRATA_JWT_SECRET/);
    expect(requireSharedJwtSecret('s'.repeat(40))).toBe('s'.repeat(40));
  });
});
