import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { webhookSecretOf } from '@strata/domain/briefs';
import { SECRET_STORE, SecretStore } from '@strata/platform/secrets';

/** Where a webhook schedule's secrets are kept in the secret store (§15.4): never in the log. */
const keyOf = (scheduleId: string) => `briefing:${scheduleId}`;

/**
 * Webhook signing secrets (REFERENCE §12.7): `whsec_` + base64 of 32 random bytes, sealed in the
 * secret store with STRATA_SECRETS_KEY. After a rotation the previous secret signs too, until
 * its overlap ends (the read model knows when, from the rotation event).
 */
@Injectable()
export class BriefingSecrets {
  constructor(@Inject(SECRET_STORE) private readonly store: SecretStore) {}

  /** A new secret, not yet stored. */
  generate(): string {
    return webhookSecretOf(randomBytes(32));
  }

  async setFirst(org: string, scheduleId: string, secret: string): Promise<void> {
    await this.store.put(org, keyOf(scheduleId), { current: secret });
  }

  /** The new secret becomes current; the one it replaces is kept for the overlap. */
  async rotate(org: string, scheduleId: string, secret: string): Promise<void> {
    const bag = await this.store.get(org, keyOf(scheduleId));
    await this.store.put(org, keyOf(scheduleId), bag?.current ? { current: secret, previous: bag.current } : { current: secret });
  }

  /** What signs a delivery now: the current secret, and the previous one during the overlap. */
  async signing(org: string, scheduleId: string, previousUntil: number | null, now: number): Promise<string[]> {
    const bag = await this.store.get(org, keyOf(scheduleId));
    if (!bag?.current) return [];
    return previousUntil !== null && now < previousUntil && bag.previous ? [bag.current, bag.previous] : [bag.current];
  }

  destroy(org: string, scheduleId: string): Promise<void> {
    return this.store.destroy(org, keyOf(scheduleId));
  }
}
