import { DomainError } from '../errors';
import { PolicyDecisionRecordedData } from './governance-events';

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

/**
 * The decision record a tool-grant refusal leaves (REFERENCE §13.4, §13.8): a `policy_decision`
 * whose deny a tool grant enforced, naming no policy. It is all the refused request writes.
 */
export function toolGrantRefusal(
  org: string,
  decisionId: string,
  req: { method: string; route: string; tool_uid: string; agent_id: string },
): PolicyDecisionRecordedData {
  return {
    org_id: org,
    decision_id: decisionId,
    method: req.method,
    route: req.route,
    tool_uid: req.tool_uid,
    target_uids: [],
    effect: 'deny',
    enforced: true,
    policy_uids: [],
    shadow: [],
    approval_uid: null,
    reason: `tool_not_granted: agent ${req.agent_id} holds no live grant on ${req.tool_uid}`,
  };
}
