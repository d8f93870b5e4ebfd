/** The secrets of one connection: tokens, header values, client secret, PKCE verifier… by name. */
export type SecretBag = Record<string, string>;

/**
 * Where connection credentials live: outside the event log, sealed at rest, keyed by
 * connection. `get` re-seals a value still under the previous key (rotation).
 */
export interface SecretStore {
  put(orgId: string, connectionId: string, secrets: SecretBag): Promise<void>;
  get(orgId: string, connectionId: string): Promise<SecretBag | null>;
  /** gone for good: DELETE of a connection */
  destroy(orgId: string, connectionId: string): Promise<void>;
}

export const SECRET_STORE = Symbol('SECRET_STORE');

/** The additional data a connection's secrets are sealed with. */
export function secretOwner(orgId: string, connectionId: string): string {
  return `${orgId}|${connectionId}`;
}
