import { ACTIVITY_TYPES } from '@strata/domain/agents';
import { Errors } from '@strata/domain/errors';

/** Which items a reader of the feed gets: agents (a bound key: its own only) and types. */
export interface ActivityFilter {
  agent_ids?: string[];
  types?: string[];
}

/** `types` names known item types (else the error `refuse` makes). */
export function checkActivityTypes(types: string[], refuse: (message: string) => Error): string[] {
  const bad = types.find((t) => !(ACTIVITY_TYPES as readonly string[]).includes(t));
  if (bad !== undefined) throw refuse(`unknown activity type '${bad}'`);
  return types;
}

/** A bound key reads its own agent's items only, whatever agents it asks for. */
export function boundFilter(boundAgentId: string | null, f: ActivityFilter): ActivityFilter {
  if (boundAgentId === null) return f;
  const asked = f.agent_ids;
  return { ...f, agent_ids: asked === undefined || asked.includes(boundAgentId) ? [boundAgentId] : [] };
}

export const invalidTypes = (message: string) => Errors.invalidField('types', message, { allowed: [...ACTIVITY_TYPES] });
