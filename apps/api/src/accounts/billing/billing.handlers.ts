import { Inject, Injectable, Optional } from '@nestjs/common';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { AccountEventTypes as T, PlanChangedData, PlanId } from '@strata/domain/accounts';
import { Errors } from '@strata/domain/errors';
import { Streams } from '@strata/domain/events';
import { CLOCK, Clock } from '@strata/domain/time';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { AuthContext } from '@strata/auth/auth-context';
import { AuthErrors } from '@strata/auth/auth-errors';
import { PlanCatalogue, PlanLimitsSpec } from '@strata/auth/plans/plan-catalogue';
import { USAGE_COUNTERS, UsageCounters, monthPeriod } from '@strata/auth/plans/plan-limits';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { RequestActivity } from '../activity/request-activity';
import { accountContext } from '../context';
import { iso, presentPlan } from '../presenters';
import { AccountsReadModel, OrgRow } from '@strata/projections/accounts/accounts-read-model';
import { AgentsReadModel } from '@strata/projections/agents/agents-read-model';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { utcDay, utcMonth } from '@strata/domain/agents';

function monthBounds(now: number): { start: number; end: number } {
  const d = new Date(now * 1000);
  return { start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) / 1000, end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) / 1000 };
}

/** Plans, the organization's subscription (no payment provider: a plan change is an event), usage. */
@Injectable()
export class BillingHandlers {
  /** the agents projection: in the projections database (embedded), or this replica's mirror (servers) */
  private readonly agents: AgentsReadModel | null;

  constructor(
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(STRATA_CONFIG) private readonly config: StrataConfig,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    @Inject(USAGE_COUNTERS) private readonly counters: UsageCounters,
    private readonly catalogue: PlanCatalogue,
    private readonly accounts: AccountsReadModel,
    private readonly activity: RequestActivity,
    private readonly mcp: McpReadModel,
    @Inject(EMBEDDED_STORAGE) storage: EmbeddedStorage | null,
    @Optional() @Inject(AccountsMirror) mirror: AccountsMirror | null,
  ) {
    this.agents = storage ? new AgentsReadModel(storage.projections) : (mirror?.agentsReadModel ?? null);
  }

  /** The agents and MCP counters of REFERENCE §17, beside their plan limits. */
  private agentUsage(org: string, limits: PlanLimitsSpec, now: number, periodStart: number) {
    const a = this.agents;
    const creditsUsed = a ? a.creditsInMonth(org, utcMonth(now)) : 0;
    const creditLimit = limits.agent_credits_per_month;
    return {
      agents: { active: a ? a.liveAgentCount(org) : 0, limit: limits.agents },
      agent_credits: {
        used: creditsUsed,
        limit: creditLimit,
        left: creditLimit === null ? null : Math.max(0, creditLimit - creditsUsed),
        today: a ? a.creditsOnOrgDay(org, utcDay(now)) : 0,
      },
      runs: {
        this_period: a ? a.runsSince(org, periodStart) : 0,
        running: a ? a.runningCount(org) : 0,
        queued: a ? a.queuedCount(org) : 0,
        concurrent_limit: limits.concurrent_runs,
      },
      schedules: { used: a ? a.liveScheduleCount(org) : 0, limit: limits.schedules },
      mcp_connections: { used: this.mcp.liveConnectionCount(org), limit: limits.mcp_connections },
    };
  }

  plans() {
    return this.catalogue.plans.map(presentPlan);
  }

  private org(auth: AuthContext): OrgRow {
    // a user who left every organization has none to show: the same answer as on other org routes
    if (auth.org_id === '') throw AuthErrors.noOrganization();
    const org = this.accounts.org(auth.org_id);
    if (!org) throw Errors.notFound(`organization ${auth.org_id} not found`, { id: auth.org_id });
    return org;
  }

  private present(org: OrgRow) {
    const plan = this.catalogue.get(org.plan);
    const { start, end } = monthBounds(this.clock.now());
    return {
      org_id: org.org_id,
      plan: plan.id,
      plan_name: plan.name,
      status: 'active',
      price_usd_per_month: plan.price_usd_per_month,
      limits: { ...plan.limits },
      current_period_start: iso(start),
      current_period_end: iso(end),
      changed_at: iso(org.plan_changed_at),
      created_at: iso(org.created_at),
    };
  }

  subscription(auth: AuthContext) {
    return this.present(this.org(auth));
  }

  /** Owners and admins change the plan; it takes effect at once. */
  async subscribe(auth: AuthContext, plan: PlanId, requestId: string) {
    if (auth.role !== 'owner' && auth.role !== 'admin') throw AuthErrors.insufficientRole('admin');
    return this.uow.run(accountContext(auth, requestId), async (tx) => {
      const org = this.org(auth);
      if (org.plan === plan) return { ...this.present(org), changed: false };
      const d: PlanChangedData = { org_id: org.org_id, from: org.plan, to: plan, changed_by: auth.user_id!, at: tx.now };
      tx.emit(Streams.org(org.org_id), T.PlanChanged, d, org.revision);
      return { ...this.present({ ...org, plan, plan_changed_at: tx.now }), changed: true };
    });
  }

  async usage(auth: AuthContext) {
    const plan = this.catalogue.get(auth.plan);
    const now = this.clock.now();
    const period = monthPeriod(now);
    const { start, end } = monthBounds(now);
    const stats = await this.graph.stats(auth.org_id);
    const credits = this.counters.creditsUsed(auth.org_id, period);
    const requests = await this.activity.requestsInPeriod(auth.org_id, period);
    const creditLimit = plan.limits.ingestion_credits_per_month;
    return {
      org_id: auth.org_id,
      plan: plan.id,
      period: { start: iso(start), end: iso(end) },
      nodes: { used: this.counters.liveNodes(auth.org_id, true), limit: plan.limits.nodes },
      edges: { used: stats.live_edges },
      requests: {
        this_period: requests,
        per_minute_limit: this.config.rateLimitPerMinute ?? plan.limits.requests_per_minute,
      },
      credits: { used: credits, limit: creditLimit, left: creditLimit === null ? null : Math.max(0, creditLimit - credits) },
      // language-model calls made for the organization this period, and their tokens (§9.6)
      llm: this.accounts.llmUsage(auth.org_id, period),
      ...this.agentUsage(auth.org_id, plan.limits, now, start),
    };
  }
}
