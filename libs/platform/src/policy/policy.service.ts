import { Injectable } from '@nestjs/common';
import {
  AccessPrincipal,
  CompiledPolicy,
  compilePolicy,
  evaluatePolicies,
  GovernanceMode,
  PolicyDecision,
  PolicyDecisionRecordedData,
  PolicyIndex,
  RequestFacts,
  RequestPrincipal,
} from '@strata/domain/governance';
import { Principal } from '@strata/domain/events';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';

/**
 * Structured policies as a service (REFERENCE §13.6): the organization's shadow and published
 * policies, compiled once per change, and their evaluation against a request's facts. The
 * policy gate uses it for every governed HTTP write; tool calls (§15.10) call `evaluate` with
 * the Execution's targets as written nodes and record `decisionRecord(…)`.
 */
@Injectable()
export class PolicyService {
  /**
   * Per organization, its mode and compiled policies as of a governance generation: a governed
   * write reads neither table while nothing in governance has changed (or been rolled back).
   */
  private readonly cache = new Map<string, { generation: number; mode: GovernanceMode; index: PolicyIndex | null }>();

  constructor(private readonly governance: GovernanceReadModel) {}

  /** The shadow and published policies, in evaluation order, compiled (cached until a policy changes). */
  active(org: string): readonly CompiledPolicy[] {
    return this.index(org).policies;
  }

  /** The same policies indexed by what each cannot match without (cached with them). */
  index(org: string): PolicyIndex {
    const c = this.cached(org);
    return (c.index ??= new PolicyIndex(this.governance.policies(org, { statuses: ['shadow', 'published'] }).map(compilePolicy)));
  }

  mode(org: string): GovernanceMode {
    return this.cached(org).mode;
  }

  private cached(org: string): { generation: number; mode: GovernanceMode; index: PolicyIndex | null } {
    const generation = this.governance.generation();
    const hit = this.cache.get(org);
    if (hit && hit.generation === generation) return hit;
    const fresh = { generation, mode: this.governance.settings(org).settings.mode, index: null };
    this.cache.set(org, fresh);
    return fresh;
  }

  /** `active`: the policies already read for this request with `mode` (the gate reads them once). */
  evaluate(org: string, facts: RequestFacts, active?: { mode: GovernanceMode; compiled: PolicyIndex }): PolicyDecision {
    const mode = active?.mode ?? this.mode(org);
    if (mode === 'off') return evaluatePolicies([], facts, mode);
    return evaluatePolicies(active?.compiled ?? this.index(org), facts, mode);
  }

  /** The `PolicyDecisionRecorded` data of a decision (target_uids capped at 100). */
  decisionRecord(
    org: string,
    decisionId: string,
    d: PolicyDecision,
    facts: Pick<RequestFacts, 'method' | 'path' | 'tool_uid' | 'written'> & { route?: string | null },
    extra: { effect?: PolicyDecision['effect']; approval_uid?: string | null; reason?: string | null; fingerprint?: string | null } = {},
  ): PolicyDecisionRecordedData {
    return {
      org_id: org,
      decision_id: decisionId,
      method: facts.method || null,
      route: facts.route ?? (facts.path || null),
      tool_uid: facts.tool_uid,
      target_uids: facts.written.slice(0, 100).map((n) => n.uid),
      effect: extra.effect ?? d.effect,
      enforced: d.enforced,
      policy_uids: d.policy_uids,
      shadow: d.shadow,
      approval_uid: extra.approval_uid ?? null,
      reason: extra.reason ?? d.deciding?.name ?? null,
      ...(extra.fingerprint ? { fingerprint: extra.fingerprint } : {}),
    };
  }
}

/** The acting principal as policies match it. */
export function requestPrincipal(principal: Principal, access: AccessPrincipal | undefined): RequestPrincipal {
  const kind = principal.kind === 'user' || principal.kind === 'api_key' || principal.kind === 'agent' ? principal.kind : 'system';
  return { kind, id: principal.id, role: access?.role ?? null, bound_agent_id: access?.bound_agent_id ?? null };
}
