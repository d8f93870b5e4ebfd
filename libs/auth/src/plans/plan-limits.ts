import { PlanId } from '@strata/domain/accounts';
import { AccountsDirectory } from '../accounts-directory.port';
import { AuthErrors } from '../auth-errors';
import { Plan, PlanCatalogue } from './plan-catalogue';

export const USAGE_COUNTERS = Symbol('USAGE_COUNTERS');

/** Counts the limits are checked against (implemented over the read models). */
export interface UsageCounters {
  /**
   * Live nodes of an organization. `exact: false` may answer from a cache that lags the
   * current batch of writes; `exact: true` counts what the current transaction sees.
   */
  liveNodes(org: string, exact: boolean): number;
  /** ingestion credits used in a calendar month (`YYYY-MM`, UTC) */
  creditsUsed(org: string, period: string): number;
}

/** Who is asking: an AuthContext (`org_id`) or a CommandContext (`org`). */
export type OrgRef = { org_id: string } | { org: string };

function orgOf(who: OrgRef): string {
  return 'org_id' in who ? who.org_id : who.org;
}

export function monthPeriod(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 7);
}

/** Writes in one unit-of-work batch the cached count may not have seen yet. */
const EXACT_MARGIN = 300;

/**
 * Plan limits, cheap enough to call on every write: the organization's plan and its live-node
 * count are cached (evicted by projected changes); only near a limit is the count exact.
 * Call inside `UnitOfWork.run` so the answer is consistent with the write.
 */
export class PlanLimits {
  private readonly plans = new Map<string, PlanId>();

  constructor(
    readonly catalogue: PlanCatalogue,
    private readonly directory: AccountsDirectory,
    private readonly counters: UsageCounters,
    private readonly now: () => number,
  ) {
    directory.onCredentialChange((c) => {
      if (c.kind === 'org') this.plans.delete(c.org_id);
    });
  }

  planOf(who: OrgRef): Plan {
    const org = orgOf(who);
    let id = this.plans.get(org);
    if (id === undefined) {
      id = this.directory.planOf(org) ?? 'free';
      this.plans.set(org, id);
    }
    return this.catalogue.get(id);
  }

  /** 403 `plan_limit_reached` (limit `nodes`) when `n` more live nodes would exceed the plan. */
  assertCanAddNodes(who: OrgRef, n = 1): void {
    if (n <= 0) return;
    const plan = this.planOf(who);
    const max = plan.limits.nodes;
    if (max === null) return;
    const org = orgOf(who);
    let current = this.counters.liveNodes(org, false);
    if (current + n + EXACT_MARGIN > max) current = this.counters.liveNodes(org, true);
    if (current + n > max) throw AuthErrors.planLimitReached('nodes', max, current, plan.id);
  }

  /** 403 `plan_required` unless the plan includes managed agents (Pro and higher). */
  assertManagedAgentsAllowed(who: OrgRef): void {
    if (!this.planOf(who).limits.managed_agents) throw AuthErrors.planRequired(this.catalogue.cheapestWithManagedAgents());
  }

  /** 403 `plan_limit_reached` (limit `ingestion_credits_per_month`) when `n` credits are not left. */
  assertCreditsAvailable(who: OrgRef, n: number): void {
    const plan = this.planOf(who);
    const max = plan.limits.ingestion_credits_per_month;
    if (max === null) return;
    const used = this.counters.creditsUsed(orgOf(who), monthPeriod(this.now()));
    if (used + n > max) throw AuthErrors.planLimitReached('ingestion_credits_per_month', max, used, plan.id);
  }
}
