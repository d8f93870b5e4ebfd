import { PlanLimits } from '@strata/auth/plans/plan-limits';
import { CommitCheck } from '@strata/platform/unit-of-work/graph-tx';

/**
 * The plan's node limit, checked by the unit of work on every request that adds live nodes,
 * whatever its route (`POST /node`, `/batch`, every cognitive route, `/reality/entity`,
 * `/evolve restore`, `POST /import`…): the whole request's addition counts, so a `/batch` of 5
 * with 2 places left is refused whole (403 `plan_limit_reached`), nothing written. Cheap: the
 * staged events were counted as they were staged, and the organization's live-node count is a
 * cached number (recounted only near the limit).
 *
 * Writes of the `system` principal are not limited: the operator's `strata import` (an
 * operator restores what the organization had) and server maintenance (decay, embeddings),
 * which never add nodes on a client's behalf. Work done for a client must run with the
 * client's principal, so it counts.
 */
export function nodeLimitCheck(limits: PlanLimits): CommitCheck {
  return (tx) => {
    const added = tx.liveNodesAdded;
    if (added > 0 && tx.ctx.principal.kind !== 'system') limits.assertCanAddNodes(tx.ctx, added);
  };
}
