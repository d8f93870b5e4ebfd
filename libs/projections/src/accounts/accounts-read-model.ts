import type { Database, Statement } from 'better-sqlite3';
import { ApiKeyCreatedData, PlanId, Role } from '@strata/domain/accounts';
import { AccountsDirectory, CredentialChange, DirectoryKey, DirectoryMembership } from '@strata/auth/accounts-directory.port';
import { AccountsProjection } from './accounts.projection';
import { prepared } from '../sqlite/prepared';

export interface UserRow {
  user_id: string;
  email: string;
  email_norm: string;
  name: string | null;
  password_hash: string;
  created_at: number;
  revision: number;
}
export interface OrgRow {
  org_id: string;
  name: string;
  plan: PlanId;
  created_by: string;
  created_at: number;
  plan_changed_at: number | null;
  revision: number;
}
export interface MembershipRow {
  org_id: string;
  org_name: string;
  plan: PlanId;
  role: Role;
  joined_at: number;
  org_created_at: number;
}
export interface MemberRow {
  user_id: string;
  email: string;
  name: string | null;
  role: Role;
  joined_at: number;
}
/** A key as created (minus its secret hash) plus what its later events set. */
export interface KeyRow extends Omit<ApiKeyCreatedData, 'secret_sha256'> {
  replaced_by: string | null;
  overlap_until: number | null;
  revoked_at: number | null;
  revoked_by: string | null;
  revision: number;
}
export interface RefreshRow {
  token_id: string;
  family_id: string;
  user_id: string;
  token_sha256: string;
  expires_at: number;
  used_at: number | null;
  family_revoked_at: number | null;
}

type RawKey = Omit<KeyRow, 'scopes' | 'space_uids' | 'project_uids'> & { scopes: string; space_uids: string | null; project_uids: string | null };

function keyOf(r: RawKey): KeyRow {
  return {
    ...r,
    scopes: JSON.parse(r.scopes),
    space_uids: r.space_uids === null ? null : JSON.parse(r.space_uids),
    project_uids: r.project_uids === null ? null : JSON.parse(r.project_uids),
  };
}

/**
 * Queries over the accounts read model (synchronous: the embedded projections database,
 * the same connection the unit of work writes through, so a handler deciding inside
 * `UnitOfWork.run` sees every write committed before it). Also the AccountsDirectory
 * authentication reads on a cache miss.
 */
export class AccountsReadModel implements AccountsDirectory {
  private readonly stmts = new Map<string, Statement>();

  constructor(
    private readonly db: Database,
    private readonly projection: AccountsProjection,
  ) {}

  private stmt(sql: string): Statement {
    return prepared(this.stmts, this.db, sql);
  }

  // ---------- AccountsDirectory ----------
  keyBySecretHash(sha256: string): DirectoryKey | null {
    const r = this.stmt(
      `SELECT key_id, org_id, scopes, expires_at, revoked_at, overlap_until, agent_id, space_uids, project_uids
       FROM acct_keys WHERE secret_sha256 = ?`,
    ).get(sha256) as (Omit<DirectoryKey, 'scopes' | 'space_uids' | 'project_uids'> & { scopes: string; space_uids: string | null; project_uids: string | null }) | undefined;
    if (!r) return null;
    return {
      ...r,
      scopes: JSON.parse(r.scopes),
      space_uids: r.space_uids === null ? null : JSON.parse(r.space_uids),
      project_uids: r.project_uids === null ? null : JSON.parse(r.project_uids),
    };
  }

  membershipsOf(userId: string): DirectoryMembership[] {
    return this.memberships(userId).map((m) => ({ org_id: m.org_id, role: m.role, plan: m.plan }));
  }

  planOf(orgId: string): PlanId | null {
    const r = this.stmt('SELECT plan FROM acct_orgs WHERE org_id = ?').get(orgId) as { plan: PlanId } | undefined;
    return r?.plan ?? null;
  }

  onCredentialChange(listener: (change: CredentialChange) => void): void {
    this.projection.onChange(listener);
  }

  // ---------- users and organizations ----------
  userByEmail(emailNorm: string): UserRow | null {
    return (this.stmt('SELECT * FROM acct_users WHERE email_norm = ?').get(emailNorm) as UserRow | undefined) ?? null;
  }

  user(userId: string): UserRow | null {
    return (this.stmt('SELECT * FROM acct_users WHERE user_id = ?').get(userId) as UserRow | undefined) ?? null;
  }

  org(orgId: string): OrgRow | null {
    return (this.stmt('SELECT * FROM acct_orgs WHERE org_id = ?').get(orgId) as OrgRow | undefined) ?? null;
  }

  /** every organization's id (servers mode counts their live nodes at start-up) */
  orgIds(): string[] {
    return (this.stmt('SELECT org_id FROM acct_orgs ORDER BY org_id').all() as { org_id: string }[]).map((r) => r.org_id);
  }

  /** a user's memberships, earliest first (the default organization is the first) */
  memberships(userId: string): MembershipRow[] {
    return this.stmt(
      `SELECT m.org_id, o.name AS org_name, o.plan, m.role, m.joined_at, o.created_at AS org_created_at
       FROM acct_members m JOIN acct_orgs o ON o.org_id = m.org_id
       WHERE m.user_id = ? ORDER BY m.position, m.org_id`,
    ).all(userId) as MembershipRow[];
  }

  membership(orgId: string, userId: string): { role: Role } | null {
    return (this.stmt('SELECT role FROM acct_members WHERE org_id = ? AND user_id = ?').get(orgId, userId) as { role: Role } | undefined) ?? null;
  }

  /** members of an organization, earliest first */
  members(orgId: string): MemberRow[] {
    return this.stmt(
      `SELECT m.user_id, u.email, u.name, m.role, m.joined_at
       FROM acct_members m JOIN acct_users u ON u.user_id = m.user_id
       WHERE m.org_id = ? ORDER BY m.position, m.user_id`,
    ).all(orgId) as MemberRow[];
  }

  // ---------- API keys ----------
  /** Whether an API key of the organization is or was bound to this agent (a known agent, REFERENCE §13.3). */
  agentKnownByKeys(orgId: string, agentId: string): boolean {
    return !!this.db.prepare('SELECT 1 FROM acct_keys WHERE org_id = ? AND agent_id = ? LIMIT 1').get(orgId, agentId);
  }

  key(keyId: string): KeyRow | null {
    const r = this.stmt('SELECT * FROM acct_keys WHERE key_id = ?').get(keyId) as RawKey | undefined;
    return r ? keyOf(r) : null;
  }

  /** keys of an organization, newest first */
  keys(orgId: string, limit: number, offset: number): KeyRow[] {
    return (this.stmt('SELECT * FROM acct_keys WHERE org_id = ? ORDER BY created_at DESC, key_id LIMIT ? OFFSET ?').all(orgId, limit, offset) as RawKey[]).map(keyOf);
  }

  // ---------- refresh tokens ----------
  refreshToken(tokenId: string): RefreshRow | null {
    return (
      (this.stmt(
        `SELECT t.token_id, t.family_id, t.user_id, t.token_sha256, t.expires_at, t.used_at, f.revoked_at AS family_revoked_at
         FROM acct_refresh_tokens t LEFT JOIN acct_refresh_families f ON f.family_id = t.family_id WHERE t.token_id = ?`,
      ).get(tokenId) as RefreshRow | undefined) ?? null
    );
  }

  // ---------- usage ----------
  creditsUsed(orgId: string, period: string): number {
    const r = this.stmt('SELECT used FROM acct_credits WHERE org_id = ? AND period = ?').get(orgId, period) as { used: number } | undefined;
    return r?.used ?? 0;
  }

  /** language-model calls and their tokens in a period (REFERENCE §9.6 metering) */
  llmUsage(orgId: string, period: string): { calls: number; input_tokens: number; output_tokens: number } {
    const r = this.stmt('SELECT calls, input_tokens, output_tokens FROM acct_llm_usage WHERE org_id = ? AND period = ?').get(orgId, period) as
      | { calls: number; input_tokens: number; output_tokens: number }
      | undefined;
    return r ?? { calls: 0, input_tokens: 0, output_tokens: 0 };
  }
}
