import { Errors } from '@strata/domain/errors';
import { NodeRecord } from '@strata/domain/records';

/** The lists of a credential's or an agent's reach: Spaces and Projects, each optional. */
export interface ScopeTargets {
  space_uids?: readonly string[] | null;
  project_uids?: readonly string[] | null;
}

const TYPES = { space_uids: 'Space', project_uids: 'Project' } as const;

/**
 * Every uid a scope list names must be a live node of its kind in the caller's organization
 * (REFERENCE §13.2, §16.3): unknown, tombstoned or another organization's → 404 `not_found`;
 * a live node of another type → 400 `wrong_node_type`. Liveness first, then types (§4.0), so
 * a list is refused whole before anything is written. `read` answers within the organization.
 */
export async function assertScopeTargets(read: (uid: string) => Promise<NodeRecord | null>, lists: ScopeTargets, prefix = ''): Promise<void> {
  const refs: { uid: string; field: string; type: string; node?: NodeRecord }[] = [];
  for (const key of ['space_uids', 'project_uids'] as const)
    (lists[key] ?? []).forEach((uid, i) => refs.push({ uid, field: `${prefix}${key}[${i}]`, type: TYPES[key] }));
  for (const r of refs) {
    const n = await read(r.uid);
    if (!n || n.tombstone_at !== null) throw Errors.refNotFound(r.field, r.uid);
    r.node = n;
  }
  for (const r of refs) if (r.node!.node_type !== r.type) throw Errors.wrongNodeType(r.field, r.uid, r.node!.node_type, [r.type]);
}
