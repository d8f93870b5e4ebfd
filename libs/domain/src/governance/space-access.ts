import { Classification, ceilingAdmits } from './classification';

export type SpaceAccessLevel = 'read' | 'write';

/** One Space grant as the access rule reads it. `write` implies `read`. */
export interface SpaceGrantTerms {
  access: SpaceAccessLevel;
  classification_ceiling: Classification | null;
}

/**
 * One test a principal must pass to reach a spaced node (REFERENCE §13.1, access table):
 * - `all`: owner or admin user JWT, or an API key with no Space, Project or agent limits;
 * - `grants`: a member or viewer user JWT, or an agent — its Space grants by Space uid;
 * - `listed`: an API key with `space_uids` — the Spaces it lists; `write` is the key's write scope.
 */
export type SpaceCheck =
  | { kind: 'all' }
  | { kind: 'grants'; grants: ReadonlyMap<string, SpaceGrantTerms> }
  | { kind: 'listed'; space_uids: ReadonlySet<string>; write: boolean };

/**
 * What a principal may do with spaced nodes: every check must pass. An agent-bound key
 * carries two (the agent's grants, then the key's own list when it has one).
 */
export interface SpaceAccess {
  checks: readonly SpaceCheck[];
}

export const FULL_SPACE_ACCESS: SpaceAccess = Object.freeze({ checks: Object.freeze([{ kind: 'all' } as const]) });

/** A node as the Space rule sees it: the live Spaces it is in, and its classification. */
export interface SpacedNode {
  spaces: readonly string[];
  classification: Classification;
}

function passes(check: SpaceCheck, node: SpacedNode, mode: SpaceAccessLevel): boolean {
  switch (check.kind) {
    case 'all':
      return true;
    case 'grants':
      return node.spaces.some((s) => {
        const g = check.grants.get(s);
        return !!g && (mode === 'read' || g.access === 'write') && ceilingAdmits(g.classification_ceiling, node.classification);
      });
    case 'listed':
      return (mode === 'read' || check.write) && node.spaces.some((s) => check.space_uids.has(s));
  }
}

/**
 * The Space rule of the access table: may this principal read (or write) this node? An
 * unspaced node passes (it keeps the other rules of §1.8); a spaced one must pass every check.
 */
export function spaceRuleAllows(access: SpaceAccess, node: SpacedNode, mode: SpaceAccessLevel): boolean {
  if (node.spaces.length === 0) return true;
  return access.checks.every((c) => passes(c, node, mode));
}

/** True when the principal passes the Space rule for every node whatever its Spaces (no lookup needed). */
export function seesEverySpace(access: SpaceAccess): boolean {
  return access.checks.every((c) => c.kind === 'all');
}

/**
 * Write access to a Space itself (creating or tombstoning an InSpace edge into it): the same
 * tests as for a node in that Space alone, at the lowest level.
 */
export function mayWriteIntoSpace(access: SpaceAccess, spaceUid: string): boolean {
  return spaceRuleAllows(access, { spaces: [spaceUid], classification: 'public' }, 'write');
}

/** Whether any check of the access could let a write through: a grant-only principal needs a `write` grant somewhere. */
export function holdsAnySpaceWrite(access: SpaceAccess): boolean {
  return access.checks.every((c) => c.kind === 'all' || (c.kind === 'listed' ? c.write && c.space_uids.size > 0 : [...c.grants.values()].some((g) => g.access === 'write')));
}
