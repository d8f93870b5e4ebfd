import { DomainError } from '../errors';
import { Role } from './account-events';

/**
 * Membership rules (pure). Roles rank owner > admin > member > viewer.
 * - owners and admins manage members; members and viewers cannot;
 * - only owners make owners, change an owner's role, or remove an owner;
 * - the last owner can be neither removed nor demoted;
 * - anyone may leave an organization (remove themselves), except its last owner.
 */
export const ROLE_RANK: Record<Role, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };

export interface MemberView {
  user_id: string;
  role: Role;
}

export function insufficientRole(required: 'owner' | 'admin'): DomainError {
  return new DomainError(403, 'insufficient_role', `${required} role required`, { required_role: required });
}

function ownerCount(members: readonly MemberView[]): number {
  return members.filter((m) => m.role === 'owner').length;
}

export type AddMemberDecision =
  | { kind: 'add'; role: Role }
  | { kind: 'change_role'; from: Role; to: Role }
  | { kind: 'unchanged' };

/** `actor` adds `targetUserId` with `role` (or changes the role of an existing member). */
export function decideAddMember(
  members: readonly MemberView[],
  actor: MemberView,
  targetUserId: string,
  role: Role,
): AddMemberDecision {
  if (ROLE_RANK[actor.role] < ROLE_RANK.admin) throw insufficientRole('admin');
  if (role === 'owner' && actor.role !== 'owner') throw insufficientRole('owner');
  const existing = members.find((m) => m.user_id === targetUserId);
  if (!existing) return { kind: 'add', role };
  if (existing.role === role) return { kind: 'unchanged' };
  if (existing.role === 'owner') {
    if (actor.role !== 'owner') throw insufficientRole('owner');
    if (ownerCount(members) <= 1) throw lastOwner();
  }
  return { kind: 'change_role', from: existing.role, to: role };
}

export function lastOwner(): DomainError {
  return new DomainError(403, 'forbidden', 'an organization must keep at least one owner: the last owner cannot be removed or demoted');
}

/** `actor` removes `targetUserId`. Returns false when the user is not a member (nothing to do). */
export function decideRemoveMember(members: readonly MemberView[], actor: MemberView, targetUserId: string): boolean {
  const target = members.find((m) => m.user_id === targetUserId);
  const self = actor.user_id === targetUserId;
  if (!self && ROLE_RANK[actor.role] < ROLE_RANK.admin) throw insufficientRole('admin');
  if (!target) return false;
  if (target.role === 'owner') {
    if (!self && actor.role !== 'owner') throw insufficientRole('owner');
    if (ownerCount(members) <= 1) throw lastOwner();
  }
  return true;
}

/** Scopes a user's role grants: viewers read only. */
export function scopesOfRole(role: Role): ('read' | 'write')[] {
  return role === 'viewer' ? ['read'] : ['read', 'write'];
}
