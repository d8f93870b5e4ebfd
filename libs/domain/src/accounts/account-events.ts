/**
 * Account events: users, organizations, memberships, API keys, refresh-token families and
 * subscriptions. Streams: `user-<id>`, `org-<id>`, `apikey-<id>` (DESIGN rule 3). Times are
 * Unix seconds (fractional) like every event; the /v1 routes present them as ISO 8601.
 * Secrets never appear here: passwords as argon2id hashes, keys and refresh tokens as SHA-256.
 */
export type Role = 'owner' | 'admin' | 'member' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'member', 'viewer'];
export type KeyScope = 'read' | 'write';
export const KEY_SCOPES: readonly KeyScope[] = ['read', 'write'];
export type PlanId = 'free' | 'pro' | 'team' | 'enterprise';
export const PLAN_IDS: readonly PlanId[] = ['free', 'pro', 'team', 'enterprise'];

export const AccountEventTypes = {
  UserSignedUp: 'UserSignedUp',
  OrganizationCreated: 'OrganizationCreated',
  MemberAdded: 'MemberAdded',
  MemberRoleChanged: 'MemberRoleChanged',
  MemberRemoved: 'MemberRemoved',
  ApiKeyCreated: 'ApiKeyCreated',
  ApiKeyRotated: 'ApiKeyRotated',
  ApiKeyRevoked: 'ApiKeyRevoked',
  RefreshTokenIssued: 'RefreshTokenIssued',
  RefreshTokenUsed: 'RefreshTokenUsed',
  RefreshFamilyRevoked: 'RefreshFamilyRevoked',
  PlanChanged: 'PlanChanged',
  /** ingestion and other metered features record what they consume */
  CreditsConsumed: 'CreditsConsumed',
  /** a language-model call made for the organization: its tokens (REFERENCE §9.6 metering) */
  LlmUsageRecorded: 'LlmUsageRecorded',
} as const;
export type AccountEventType = (typeof AccountEventTypes)[keyof typeof AccountEventTypes];

export interface UserSignedUpData {
  user_id: string;
  email: string;
  /** lowercased, trimmed: the uniqueness key */
  email_norm: string;
  name: string | null;
  /** argon2id PHC string */
  password_hash: string;
  created_at: number;
}
export interface OrganizationCreatedData {
  org_id: string;
  name: string;
  created_by: string;
  plan: PlanId;
  created_at: number;
}
export interface MemberAddedData {
  org_id: string;
  user_id: string;
  role: Role;
  added_by: string;
  at: number;
}
export interface MemberRoleChangedData {
  org_id: string;
  user_id: string;
  from: Role;
  to: Role;
  changed_by: string;
  at: number;
}
export interface MemberRemovedData {
  org_id: string;
  user_id: string;
  removed_by: string;
  at: number;
}
export interface ApiKeyCreatedData {
  key_id: string;
  org_id: string;
  name: string;
  /** first characters of the secret, shown in lists to recognise a key */
  prefix: string;
  /** hex SHA-256 of the secret */
  secret_sha256: string;
  scopes: KeyScope[];
  /** Unix seconds or null (never expires) */
  expires_at: number | null;
  space_uids: string[] | null;
  project_uids: string[] | null;
  agent_id: string | null;
  created_by: string;
  created_at: number;
  /** set when this key replaces another (rotation) */
  rotated_from: string | null;
}
export interface ApiKeyRotatedData {
  key_id: string;
  org_id: string;
  replaced_by: string;
  /** the old key stops working at this time */
  overlap_until: number;
  rotated_by: string;
  at: number;
}
export interface ApiKeyRevokedData {
  key_id: string;
  org_id: string;
  revoked_by: string;
  at: number;
  /** why, when not the owner's own DELETE (`agent_archived`: its managed agent was archived) */
  reason?: string;
}
export interface RefreshTokenIssuedData {
  user_id: string;
  family_id: string;
  token_id: string;
  /** hex SHA-256 of the secret part */
  token_sha256: string;
  issued_at: number;
  expires_at: number;
}
export interface RefreshTokenUsedData {
  user_id: string;
  family_id: string;
  token_id: string;
  replaced_by: string;
  at: number;
}
export interface RefreshFamilyRevokedData {
  user_id: string;
  family_id: string;
  reason: 'reuse_detected' | 'logout';
  at: number;
}
export interface PlanChangedData {
  org_id: string;
  from: PlanId;
  to: PlanId;
  changed_by: string;
  at: number;
}
export interface CreditsConsumedData {
  org_id: string;
  amount: number;
  reason: string;
  at: number;
  /** `agent`: a managed agent's model call (REFERENCE §16.8), a meter of its own; absent: ingestion credits */
  meter?: 'agent';
  agent_id?: string;
  session_id?: string;
  run_id?: string;
  model?: string;
  input_tokens?: number;
  output_tokens?: number;
}
/** One model call's tokens; what was asked and answered is never recorded. */
export interface LlmUsageRecordedData {
  org_id: string;
  /** 'openai' | 'anthropic' */
  provider: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  at: number;
}

/** Normalised e-mail: the uniqueness key of a user. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
