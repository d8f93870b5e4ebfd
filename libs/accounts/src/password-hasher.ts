import { hash, verify } from '@node-rs/argon2';
import type { Algorithm } from '@node-rs/argon2';

/** argon2id (a const enum in the typings; 2 is Argon2id), the OWASP baseline parameters. */
const OPTIONS = { algorithm: 2 as Algorithm, memoryCost: 19456, timeCost: 2, parallelism: 1 };

/** Password hashing. Passwords are never stored, logged or returned: only the PHC string. */
export class PasswordHasher {
  /** a hash of a random password: verifying unknown e-mails costs the same as known ones */
  private dummy: Promise<string> | null = null;

  hash(password: string): Promise<string> {
    return hash(password, OPTIONS);
  }

  async verify(phc: string | null, password: string): Promise<boolean> {
    if (phc === null) {
      this.dummy ??= hash(`no-such-user-${Math.random()}`, OPTIONS);
      await verify(await this.dummy, password).catch(() => false);
      return false;
    }
    try {
      return await verify(phc, password);
    } catch {
      return false;
    }
  }
}
