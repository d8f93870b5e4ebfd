import { Inject, Injectable } from '@nestjs/common';
import { ConnectionAuthInput, staticAuthHeaders } from '@strata/domain/mcp';
import { SECRET_STORE, SecretBag, SecretStore } from '../secrets/secret-store.port';

/** Secret bag keys of a connection. */
export const SECRET_KEYS = {
  /** static credentials: the headers to send, as JSON */
  staticHeaders: 'static_headers',
} as const;

/**
 * The headers a connection sends, from its secrets (REFERENCE §15.4). Values go only to the
 * connection URL's origin and never leave this process otherwise.
 */
@Injectable()
export class ConnectionCredentials {
  constructor(@Inject(SECRET_STORE) readonly store: SecretStore) {}

  /** The secret bag of static credentials. */
  staticBag(auth: ConnectionAuthInput): SecretBag {
    return { [SECRET_KEYS.staticHeaders]: JSON.stringify(staticAuthHeaders(auth)) };
  }

  async headers(org: string, connectionId: string): Promise<Record<string, string>> {
    const bag = await this.store.get(org, connectionId);
    if (!bag) return {};
    if (bag[SECRET_KEYS.staticHeaders]) return JSON.parse(bag[SECRET_KEYS.staticHeaders]) as Record<string, string>;
    if (bag.access_token) return { authorization: `Bearer ${bag.access_token}` };
    return {};
  }
}
