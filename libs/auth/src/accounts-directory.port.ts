import { KeyScope, PlanId, Role } from '@strata/domain/accounts';

export const ACCOUNTS_DIRECTORY = Symbol('ACCOUNTS_DIRECTORY');

/** An API key as the guard needs it (no secret, no hash). Times in Unix seconds. */
export interface DirectoryKey {
  key_id: string;
  org_id: string;
  scopes: KeyScope[];
  expires_at: number | null;
  revoked_at: number | null;
  overlap_until: number | null;
  agent_id: string | null;
  space_uids: string[] | null;
  project_uids: string[] | null;
}

export interface DirectoryMembership {
  org_id: string;
  role: Role;
  plan: PlanId;
}

/** A change that may make cached credentials stale. */
export type CredentialChange = { kind: 'key'; key_id: string } | { kind: 'org'; org_id: string } | { kind: 'user'; user_id: string };

/**
 * What authentication reads about accounts: implemented by the accounts read model. Calls are
 * synchronous (embedded read model) and made only when a credential is not cached.
 */
export interface AccountsDirectory {
  keyBySecretHash(sha256: string): DirectoryKey | null;
  /** memberships, earliest first */
  membershipsOf(userId: string): DirectoryMembership[];
  planOf(orgId: string): PlanId | null;
  /** called when a change is projected (revocations take effect at once) */
  onCredentialChange(listener: (change: CredentialChange) => void): void;
}
