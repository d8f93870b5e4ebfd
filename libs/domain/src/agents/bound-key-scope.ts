import { AgentScope } from './agent-record';

/** A credential's own Space and Project lists (null: not restricted by that kind). */
export interface ScopeLists {
  readonly space_uids: readonly string[] | null;
  readonly project_uids: readonly string[] | null;
}

/**
 * What a key bound to a managed agent may reach (REFERENCE §13.3, §16.13): the key's own
 * lists within the agent's `scope`, which may narrow them and never widen them. The agent's
 * scope is read as its runs read it (a list given, even empty, restricts; none does not).
 *
 * A credential's lists are a union (the nodes of its Spaces plus the admitted sets of its
 * Projects), so when both sides are restricted each kind is intersected on its own, and a
 * kind only one side lists is dropped: the result never reaches a node either side could not.
 * It returns `key` itself when the agent does not narrow it.
 */
export function boundKeyScope(key: ScopeLists, agent: AgentScope): ScopeLists {
  const own: ScopeLists = { space_uids: agent.space_uids ?? null, project_uids: agent.project_uids ?? null };
  const restricted = (l: ScopeLists) => l.space_uids !== null || l.project_uids !== null;
  if (!restricted(own)) return key;
  if (!restricted(key)) return own;
  const both = (a: readonly string[] | null, b: readonly string[] | null): readonly string[] | null => {
    if (a === null && b === null) return null;
    if (a === null || b === null) return [];
    const keep = new Set(b);
    return a.filter((u) => keep.has(u));
  };
  return { space_uids: both(key.space_uids, own.space_uids), project_uids: both(key.project_uids, own.project_uids) };
}
