import { ActionContext } from './decision';

/** Who proposes, reviews or approves: the call's agent attribution, else the acting principal. */
export function actorOf(ctx: ActionContext): string {
  return ctx.agent_id ?? ctx.principal_id;
}
