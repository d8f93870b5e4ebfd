import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** API keys: `strata_` + base62 of 32 random bytes (43 characters). Only a SHA-256 is stored. */
export const API_KEY_PREFIX = 'strata_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B62_LEN_32 = 43; // ceil(256 / log2(62))

export function base62(bytes: Buffer, width: number): string {
  let n = BigInt('0x' + (bytes.toString('hex') || '0'));
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(width, '0');
}

export function generateApiKeySecret(): string {
  return API_KEY_PREFIX + base62(randomBytes(32), B62_LEN_32);
}

export function isApiKeyToken(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** What lists show to recognise a key: `strata_` and the next 6 characters. */
export function apiKeyDisplayPrefix(secret: string): string {
  return secret.slice(0, API_KEY_PREFIX.length + 6);
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export function sameHex(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
}

/** Refresh tokens: `<token_id>.<secret>`; the id finds the row, the secret is checked by hash. */
export function generateRefreshSecret(): string {
  return base62(randomBytes(32), B62_LEN_32);
}

export function formatRefreshToken(tokenId: string, secret: string): string {
  return `${tokenId}.${secret}`;
}

export function parseRefreshToken(token: string): { token_id: string; secret: string } | null {
  const m = /^([0-9a-f-]{36})\.([0-9A-Za-z]{20,64})$/.exec(token);
  return m ? { token_id: m[1], secret: m[2] } : null;
}
