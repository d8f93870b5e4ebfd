import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { SecretCipher, SecretKeyError, parseSecretsKey } from './secret-cipher';
import { SECRETS_KEY_FILE, secretCipherFor } from './secrets-key';

describe('SecretCipher (AES-256-GCM)', () => {
  const key = randomBytes(32);
  it('seals with a fresh nonce each time and opens only for the same owner', () => {
    const c = new SecretCipher(key);
    const a = c.seal('s3cret-token-value', 'org|conn');
    const b = c.seal('s3cret-token-value', 'org|conn');
    expect(a).not.toBe(b);
    expect(a).not.toContain('s3cret');
    expect(c.open(a, 'org|conn')).toEqual({ plaintext: 's3cret-token-value', stale: false });
    expect(() => c.open(a, 'org|other')).toThrow(SecretKeyError);
  });

  it('refuses a tampered value', () => {
    const c = new SecretCipher(key);
    const parts = c.seal('value', 'o|c').split('.');
    const ct = Buffer.from(parts[3], 'base64url');
    ct[0] ^= 1;
    parts[3] = ct.toString('base64url');
    expect(() => c.open(parts.join('.'), 'o|c')).toThrow(/does not open/);
    expect(() => c.open('garbage', 'o|c')).toThrow(/not a sealed secret/);
  });

  it('opens values of the previous key and says they are stale', () => {
    const old = new SecretCipher(key);
    const sealed = old.seal('v', 'o|c');
    const next = new SecretCipher(randomBytes(32), key);
    expect(next.open(sealed, 'o|c')).toEqual({ plaintext: 'v', stale: true });
    expect(() => new SecretCipher(randomBytes(32)).open(sealed, 'o|c')).toThrow(/neither/);
  });

  it('takes the key as 32 bytes of base64', () => {
    expect(parseSecretsKey(key.toString('base64'))).toEqual(key);
    expect(parseSecretsKey(key.toString('base64url'))).toEqual(key);
    expect(() => parseSecretsKey(randomBytes(16).toString('base64'))).toThrow(/32 bytes/);
  });
});

describe('secretCipherFor', () => {
  it('embedded: generates the key once into the data dir, mode 0600', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-key-'));
    const cfg = { store: 'embedded' as const, dataDir: dir, secretsKey: null, secretsKeyPrevious: null };
    const sealed = secretCipherFor(cfg).seal('v', 'o|c');
    expect(fs.statSync(path.join(dir, SECRETS_KEY_FILE)).mode & 0o077).toBe(0);
    expect(secretCipherFor(cfg).open(sealed, 'o|c').plaintext).toBe('v');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('servers mode needs STRATA_SECRETS_KEY; a configured key wins', () => {
    expect(() => secretCipherFor({ store: 'servers', dataDir: '/nonexistent', secretsKey: null, secretsKeyPrevious: null })).toThrow(/STRATA_SECRETS_KEY/);
    const k = randomBytes(32).toString('base64');
    const sealed = secretCipherFor({ store: 'servers', dataDir: '/nonexistent', secretsKey: k, secretsKeyPrevious: null }).seal('v', 'o|c');
    expect(new SecretCipher(Buffer.from(k, 'base64')).open(sealed, 'o|c').plaintext).toBe('v');
  });
});
