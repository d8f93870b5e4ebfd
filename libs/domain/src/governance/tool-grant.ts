import { DomainError } from '../errors';

/** A tool grant as the check reads it. */
export interface ToolGrantTerms {
  expires_at: number | null;
}

/**
 * Whether an agent may invoke a tool now (REFERENCE §13.4): it holds a grant that has not
 * expired, on an Affordance that is live (a grant on a tombstoned one is dormant).
 */
export function toolGrantActive(grant: ToolGrantTerms | null, affordanceLive: boolean, now: number): boolean {
  return grant !== null && affordanceLive && (grant.expires_at === null || grant.expires_at > now);
}

export function toolNotGranted(affordanceUid: string, agentId: string): DomainError {
  return new DomainError(403, 'tool_not_granted', `agent ${agentId} has no grant for tool ${affordanceUid}`, { affordance_uid: affordanceUid });
}
