import { DomainError } from '../errors';
import { SpaceAccess, SpaceGrantTerms, FULL_SPACE_ACCESS, SpaceCheck } from './space-access';

/**
 * The facts about a caller the governance rules read: its credential, role, key limits and
 * bound agent. Built from the authenticated request; `system` is a server process (jobs, CLI
 * import), which the Space rule never restricts.
 */
export interface AccessPrincipal {
  credential: 'user_jwt' | 'api_key' | 'system';
  user_id: string | null;
  role: 'owner' | 'admin' | 'member' | 'viewer' | null;
  /** the key's scopes (a user JWT writes as its role allows) */
  scopes: readonly ('read' | 'write')[];
  bound_agent_id: string | null;
  space_uids: readonly string[] | null;
  project_uids: readonly string[] | null;
}

export const SYSTEM_ACCESS_PRINCIPAL: AccessPrincipal = Object.freeze<AccessPrincipal>({
  credential: 'system',
  user_id: null,
  role: null,
  scopes: ['read', 'write'],
  bound_agent_id: null,
  space_uids: null,
  project_uids: null,
});

/** Space grants of one principal (`user:<id>` or `agent:<id>`), by Space uid. */
export type GrantLookup = (principalUid: string) => ReadonlyMap<string, SpaceGrantTerms>;

/**
 * The Space rule's checks for a principal (REFERENCE §13.1, access table, one row each):
 * owners, admins and unlimited keys pass; members, viewers and agents need a grant; a key with
 * `space_uids` must list one of the node's Spaces; a key bound to an agent passes both the
 * agent's grants and its own list. A key limited to Projects only has no row that admits a
 * spaced node, so it reaches none.
 */
export function spaceAccessOf(p: AccessPrincipal, grantsOf: GrantLookup): SpaceAccess {
  if (p.credential === 'system') return FULL_SPACE_ACCESS;
  if (p.credential === 'user_jwt') {
    if (p.role === 'owner' || p.role === 'admin') return FULL_SPACE_ACCESS;
    return { checks: [{ kind: 'grants', grants: grantsOf(`user:${p.user_id}`) }] };
  }
  const checks: SpaceCheck[] = [];
  if (p.bound_agent_id !== null) checks.push({ kind: 'grants', grants: grantsOf(`agent:${p.bound_agent_id}`) });
  if (p.space_uids !== null) checks.push({ kind: 'listed', space_uids: new Set(p.space_uids), write: p.scopes.includes('write') });
  if (!checks.length) return p.project_uids === null ? FULL_SPACE_ACCESS : { checks: [{ kind: 'listed', space_uids: new Set(), write: false }] };
  return { checks };
}

/**
 * A signed-in user whose role is read-only (an org viewer): the access table lets it write
 * inside a Space it holds a `write` grant on, and nowhere else (REFERENCE §13.1).
 */
export function writesOnlyInSpaces(p: Pick<AccessPrincipal, 'credential' | 'scopes'>): boolean {
  return p.credential === 'user_jwt' && !p.scopes.includes('write');
}

/** Such a user writing outside every Space it may write: its role is read-only there. */
export function readOnlyOutsideSpaces(uid?: string): DomainError {
  return new DomainError(403, 'read_only_credential', 'this credential is read-only outside the Spaces it holds a write grant on', uid === undefined ? {} : { uid });
}

/** Creating, updating, tombstoning or restoring a Space node: the owner's user JWT only. */
export function assertMayWriteSpaceNode(p: AccessPrincipal): void {
  if (p.credential === 'system') return;
  if (p.credential === 'api_key') throw apiKeyNotAllowed();
  if (p.role !== 'owner') throw insufficientRole('owner');
}

/** Lowering a node's classification: owner or admin user JWT only. */
export function assertMayLowerClassification(p: AccessPrincipal): void {
  if (p.credential === 'system') return;
  if (p.credential === 'api_key') throw apiKeyNotAllowed();
  if (p.role !== 'owner' && p.role !== 'admin') throw insufficientRole('admin');
}

function apiKeyNotAllowed(): DomainError {
  return new DomainError(403, 'api_key_not_allowed', 'this change requires a signed-in user');
}

function insufficientRole(required: string): DomainError {
  return new DomainError(403, 'insufficient_role', `${required} role required`, { required_role: required });
}

/** A spaced node the caller may read but not write (REFERENCE §13.1). */
export function spaceWriteForbidden(uid: string): DomainError {
  return new DomainError(403, 'forbidden', `no write access to the Space of node ${uid}`, { uid });
}


