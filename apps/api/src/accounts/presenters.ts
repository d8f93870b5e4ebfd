import { keyStatus } from '@strata/domain/accounts';
import { Plan } from '@strata/auth/plans/plan-catalogue';
import { KeyRow, MemberRow, MembershipRow, OrgRow, UserRow } from '@strata/projections/accounts/accounts-read-model';
import { MembershipResponse, UserResponse } from './account/account.response';
import { ApiKeyResponse } from './api-keys/api-key.response';
import { PlanResponse } from './billing/billing.response';
import { MemberResponse, OrgResponse } from './orgs/org.response';

/** Management objects on /v1 routes carry ISO 8601 UTC times with milliseconds (REFERENCE §1.3). */
export function iso(unixSeconds: number): string;
export function iso(unixSeconds: number | null): string | null;
export function iso(unixSeconds: number | null): string | null {
  return unixSeconds === null ? null : new Date(Math.round(unixSeconds * 1000)).toISOString();
}

export function presentUser(u: UserRow): UserResponse {
  return { id: u.user_id, email: u.email, name: u.name, created_at: iso(u.created_at) };
}

export function presentOrg(o: Pick<OrgRow, 'org_id' | 'name' | 'plan' | 'created_at'>, role: string | null): OrgResponse {
  return { id: o.org_id, name: o.name, plan: o.plan, role, created_at: iso(o.created_at) };
}

export function presentMembership(m: MembershipRow): MembershipResponse {
  return { org_id: m.org_id, org_name: m.org_name, role: m.role, plan: m.plan, joined_at: iso(m.joined_at) };
}

export function presentMember(m: MemberRow, orgId: string): MemberResponse {
  return { org_id: orgId, user_id: m.user_id, email: m.email, name: m.name, role: m.role, joined_at: iso(m.joined_at) };
}

/** An API key without its secret (lists, rotation, revocation). */
export function presentKey(k: KeyRow, now: number, lastUsedAt: number | null): ApiKeyResponse {
  return {
    id: k.key_id,
    name: k.name,
    prefix: k.prefix,
    scopes: k.scopes,
    space_uids: k.space_uids,
    project_uids: k.project_uids,
    agent_id: k.agent_id,
    created_by: k.created_by,
    created_at: iso(k.created_at),
    last_used_at: iso(lastUsedAt),
    expires_at: iso(k.expires_at),
    status: keyStatus(k, now),
    rotated_from: k.rotated_from,
    replaced_by: k.replaced_by,
    overlap_until: iso(k.overlap_until),
    revoked_at: iso(k.revoked_at),
  };
}

export function presentPlan(p: Plan): PlanResponse {
  return { id: p.id, name: p.name, price_usd_per_month: p.price_usd_per_month, limits: { ...p.limits } };
}

export function paginated<T>(items: T[], limit: number, offset: number, hasMore: boolean) {
  return { items, has_more: hasMore, limit, offset };
}
