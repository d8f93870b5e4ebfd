import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A sealed value: `v1.<key id>.<nonce>.<ciphertext>.<tag>`, base64url parts. */
const SEALED_RE = /^v1\.([0-9a-f]{16})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{22})$/;

export class SecretKeyError extends Error {}

/** A key from its base64 form (STRATA_SECRETS_KEY): exactly 32 bytes. */
export function parseSecretsKey(raw: string, name = 'STRATA_SECRETS_KEY'): Buffer {
  const trimmed = raw.trim();
  const key = Buffer.from(trimmed, /[-_]/.test(trimmed) ? 'base64url' : 'base64');
  if (key.length !== 32) throw new SecretKeyError(`${name} must be 32 bytes in base64 (got ${key.length} bytes)`);
  return key;
}

/** Which key sealed a value, without revealing anything of the key. */
function keyId(key: Buffer): string {
  return createHash('sha256').update('strata-secrets-key-id').update(key).digest('hex').slice(0, 16);
}

/** What `open` found: the plaintext, and whether it was sealed with the previous key. */
export interface Opened {
  plaintext: string;
  /** sealed under the previous key: seal it again with the current one */
  stale: boolean;
}

/**
 * AES-256-GCM with a random 96-bit nonce per value and the owner of the value
 * (`org_id|connection_id`) as additional data, so a sealed value moved to another connection
 * does not open. The previous key (during a rotation) only opens.
 */
export class SecretCipher {
  private readonly currentId: string;
  private readonly previousId: string | null;

  constructor(
    private readonly current: Buffer,
    private readonly previous: Buffer | null = null,
  ) {
    if (current.length !== 32) throw new SecretKeyError('the secrets key must be 32 bytes');
    if (previous && previous.length !== 32) throw new SecretKeyError('the previous secrets key must be 32 bytes');
    this.currentId = keyId(current);
    this.previousId = previous ? keyId(previous) : null;
  }

  seal(plaintext: string, aad: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, nonce);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', this.currentId, nonce.toString('base64url'), ct.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** Throws when the value is malformed, sealed under an unknown key, tampered with, or for another owner. */
  open(sealed: string, aad: string): Opened {
    const m = SEALED_RE.exec(sealed);
    if (!m) throw new SecretKeyError('not a sealed secret');
    const [, id, nonce, ct, tag] = m;
    const key = id === this.currentId ? this.current : id === this.previousId ? this.previous : null;
    if (!key) throw new SecretKeyError('the secret was sealed with a key that is neither STRATA_SECRETS_KEY nor STRATA_SECRETS_KEY_PREVIOUS');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    let plaintext: string;
    try {
      plaintext = Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretKeyError('the secret does not open: tampered with, or sealed for another owner');
    }
    return { plaintext, stale: id !== this.currentId };
  }
}
