import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';

export const JWT_SECRET_FILE = 'jwt-secret';

/**
 * The JWT signing secret: STRATA_JWT_SECRET when set, otherwise generated once into
 * `<dataDir>/jwt-secret` with owner-only permissions (0600) and read back on later starts.
 */
export function resolveJwtSecret(configured: string | null, dataDir: string): string {
  if (configured) return configured;
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, JWT_SECRET_FILE);
  try {
    fs.writeFileSync(file, randomBytes(48).toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const st = fs.statSync(file);
  if ((st.mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  const secret = fs.readFileSync(file, 'utf8').trim();
  if (secret.length < 32) throw new Error(`${file} holds a secret shorter than 32 characters; delete it to generate a new one`);
  return secret;
}

/**
 * Servers mode: every API replica must sign and verify with the same secret, and nothing in
 * one replica's local disk is shared, so the secret has to be configured.
 */
export function requireSharedJwtSecret(configured: string | null): string {
  if (!configured) throw new Error('STRATA_STORE=servers needs STRATA_JWT_SECRET (at least 32 characters): every API replica must sign and verify tokens with the same secret');
  return configured;
}
