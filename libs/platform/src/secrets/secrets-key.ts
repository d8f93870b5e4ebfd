import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SecretCipher, SecretKeyError, parseSecretsKey } from './secret-cipher';

export const SECRETS_KEY_FILE = 'secrets-key';

export interface SecretsKeyConfig {
  store: 'embedded' | 'servers';
  dataDir: string;
  /** STRATA_SECRETS_KEY, base64 */
  secretsKey: string | null;
  /** STRATA_SECRETS_KEY_PREVIOUS, base64 */
  secretsKeyPrevious: string | null;
}

/**
 * The cipher of the secret store. STRATA_SECRETS_KEY when set; embedded, else a key generated
 * once into `<data dir>/secrets-key` (mode 0600); servers mode requires the variable, as every
 * replica must open what another sealed.
 */
export function secretCipherFor(cfg: SecretsKeyConfig): SecretCipher {
  const previous = cfg.secretsKeyPrevious ? parseSecretsKey(cfg.secretsKeyPrevious, 'STRATA_SECRETS_KEY_PREVIOUS') : null;
  if (cfg.secretsKey) return new SecretCipher(parseSecretsKey(cfg.secretsKey), previous);
  if (cfg.store === 'servers') throw new SecretKeyError('STRATA_STORE=servers needs STRATA_SECRETS_KEY (32 bytes, base64), the same on every replica');
  fs.mkdirSync(cfg.dataDir, { recursive: true });
  const file = path.join(cfg.dataDir, SECRETS_KEY_FILE);
  try {
    fs.writeFileSync(file, randomBytes(32).toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  return new SecretCipher(parseSecretsKey(fs.readFileSync(file, 'utf8'), file), previous);
}
