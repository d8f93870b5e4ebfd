import { NodeRecord } from '../records';
import { ActionContext } from './decision';

/**
 * The node an upsert updates: the oldest of `newestFirst` in the Spaces the request places what
 * it creates in (REFERENCE §13.1); one in other Spaces is a different node.
 */
export async function oldestInPlacement(newestFirst: readonly NodeRecord[], ctx: ActionContext): Promise<NodeRecord | undefined> {
  for (const n of [...newestFirst].reverse()) if (!ctx.inPlacement || (await ctx.inPlacement(n.uid))) return n;
  return undefined;
}
