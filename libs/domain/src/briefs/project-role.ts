import { DomainError } from '../errors';

/** A caller's role on one Project (REFERENCE §12.2), lowest first. */
export type ProjectRole = 'viewer' | 'agent' | 'editor' | 'manager';
export const PROJECT_ROLES: readonly ProjectRole[] = ['viewer', 'agent', 'editor', 'manager'];

/** The roles a grant may give, by principal kind (§12.8). */
export const GRANTABLE_ROLES: Readonly<Record<'user' | 'agent', readonly ProjectRole[]>> = {
  user: ['viewer', 'editor'],
  agent: ['viewer', 'agent'],
};

const rank = (r: ProjectRole | null): number => (r === null ? -1 : PROJECT_ROLES.indexOf(r));

export function higherRole(a: ProjectRole | null, b: ProjectRole | null): ProjectRole | null {
  return rank(a) >= rank(b) ? a : b;
}

export function roleAtLeast(role: ProjectRole | null, min: ProjectRole): boolean {
  return rank(role) >= rank(min);
}

/** What the role rule reads about a caller (a subset of the authenticated request). */
export interface ProjectCaller {
  credential: 'user_jwt' | 'api_key';
  user_id: string | null;
  org_role: 'owner' | 'admin' | 'member' | 'viewer' | null;
  scopes: readonly ('read' | 'write')[];
  bound_agent_id: string | null;
}

/**
 * What the caller's credential and grants say about P. `inScope`: P is in the caller's read
 * scope (a Project- or Space-limited key that does not reach P has no role on it).
 * `agentUnrestricted`: the bound agent holds no Project or Space grant and the organization
 * lets such agents act organization-wide (§13.3).
 */
export interface ProjectRoleFacts {
  inScope: boolean;
  /** the grant of `user:<id>` (user JWT) on P, else null */
  userGrant: ProjectRole | null;
  /** the grant of `agent:<id>` (agent-bound key) on P, else null */
  agentGrant: ProjectRole | null;
  agentUnrestricted: boolean;
}

function credentialRole(c: ProjectCaller): ProjectRole | null {
  if (c.credential === 'user_jwt') {
    if (c.org_role === 'owner' || c.org_role === 'admin') return 'manager';
    if (c.org_role === 'member') return 'editor';
    return c.org_role === 'viewer' ? 'viewer' : null;
  }
  return c.scopes.includes('write') ? 'editor' : 'viewer';
}

/**
 * The effective role on P (§12.2): the higher of the credential's role and the grant's. Grants
 * raise and never lower; a read-only key stays `viewer`; a key bound to a restricted agent has
 * only the agent's grant, capped at `viewer` when read-only. Null = no role (404 on brief routes).
 */
export function effectiveProjectRole(c: ProjectCaller, f: ProjectRoleFacts): ProjectRole | null {
  const readOnly = c.credential === 'api_key' && !c.scopes.includes('write');
  if (c.credential === 'api_key' && c.bound_agent_id !== null && !f.agentUnrestricted) {
    if (f.agentGrant === null) return null;
    return readOnly ? 'viewer' : f.agentGrant;
  }
  if (!f.inScope) return null;
  const own = credentialRole(c);
  if (c.credential === 'user_jwt') return higherRole(own, f.userGrant);
  if (readOnly) return 'viewer';
  return higherRole(own, f.agentGrant);
}

/** 404 without a role, 403 `forbidden` (`required_role`) below `min`. */
export function assertProjectRole(role: ProjectRole | null, min: ProjectRole, projectUid: string): asserts role is ProjectRole {
  if (role === null) throw new DomainError(404, 'not_found', `project_uid: node ${projectUid} not found`, { field: 'project_uid', uid: projectUid });
  if (!roleAtLeast(role, min)) throw new DomainError(403, 'forbidden', `this action needs the ${min} role on the Project`, { required_role: min });
}
