import { PlanId } from '@strata/domain/accounts';

/** What a plan allows. `null` means unlimited. */
export interface PlanLimitsSpec {
  /** live (not tombstoned) nodes per organization */
  nodes: number | null;
  /** API requests per minute per credential */
  requests_per_minute: number;
  /** ingestion credits per calendar month (UTC) */
  ingestion_credits_per_month: number | null;
  managed_agents: boolean;
  /** non-archived managed agents (REFERENCE §17) */
  agents: number | null;
  /** agent credits per calendar month (UTC) */
  agent_credits_per_month: number | null;
  /** agent runs holding a run slot at once */
  concurrent_runs: number;
  /** agent schedules */
  schedules: number | null;
  /** MCP connections not disconnected (REFERENCE §17) */
  mcp_connections: number | null;
}

export interface Plan {
  id: PlanId;
  name: string;
  /** USD per month; null = contact sales */
  price_usd_per_month: number | null;
  limits: PlanLimitsSpec;
}

/** The plan catalogue (GET /v1/billing/plans). The Free limits are the REFERENCE §1.12 defaults. */
export const PLANS: readonly Plan[] = [
  { id: 'free', name: 'Free', price_usd_per_month: 0, limits: { nodes: 10_000, requests_per_minute: 600, ingestion_credits_per_month: 100, managed_agents: false, agents: 0, agent_credits_per_month: 0, concurrent_runs: 0, schedules: 0, mcp_connections: 2 } },
  { id: 'pro', name: 'Pro', price_usd_per_month: 29, limits: { nodes: 250_000, requests_per_minute: 3_000, ingestion_credits_per_month: 5_000, managed_agents: true, agents: 5, agent_credits_per_month: 10_000, concurrent_runs: 3, schedules: 20, mcp_connections: 10 } },
  { id: 'team', name: 'Team', price_usd_per_month: 99, limits: { nodes: 2_000_000, requests_per_minute: 10_000, ingestion_credits_per_month: 25_000, managed_agents: true, agents: 25, agent_credits_per_month: 50_000, concurrent_runs: 10, schedules: 100, mcp_connections: 50 } },
  { id: 'enterprise', name: 'Enterprise', price_usd_per_month: null, limits: { nodes: null, requests_per_minute: 60_000, ingestion_credits_per_month: null, managed_agents: true, agents: null, agent_credits_per_month: null, concurrent_runs: 50, schedules: null, mcp_connections: null } },
];

/** Order of plans, cheapest first: `required_plan` names the cheapest plan with a feature. */
export const PLAN_ORDER: readonly PlanId[] = PLANS.map((p) => p.id);

export type PlanOverrides = Partial<Record<PlanId, Partial<PlanLimitsSpec>>>;

/** The catalogue with deployment overrides (STRATA_PLAN_LIMITS) applied. */
export class PlanCatalogue {
  private readonly byId: Map<string, Plan>;
  readonly plans: readonly Plan[];

  constructor(overrides: PlanOverrides = {}) {
    this.plans = PLANS.map((p) => ({ ...p, limits: { ...p.limits, ...(overrides[p.id] ?? {}) } }));
    this.byId = new Map(this.plans.map((p) => [p.id, p]));
  }

  get(id: string): Plan {
    return this.byId.get(id) ?? this.byId.get('free')!;
  }

  has(id: string): id is PlanId {
    return this.byId.has(id);
  }

  /** cheapest plan that allows managed agents */
  cheapestWithManagedAgents(): PlanId {
    return this.plans.find((p) => p.limits.managed_agents)?.id ?? 'enterprise';
  }
}

/**
 * The overrides with STRATA_RATE_LIMIT_PER_MINUTE applied to every plan (it wins over a plan's
 * own `requests_per_minute`, as in the throttler), so plans and subscriptions show the limit
 * that is enforced.
 */
export function withRateLimit(overrides: PlanOverrides, perMinute: number | null): PlanOverrides {
  if (perMinute === null) return overrides;
  return Object.fromEntries(PLANS.map((p) => [p.id, { ...(overrides[p.id] ?? {}), requests_per_minute: perMinute }])) as PlanOverrides;
}

/** Parses STRATA_PLAN_LIMITS: `{"free":{"nodes":100}}`. Throws a readable message on bad input. */
export function parsePlanOverrides(raw: string | undefined): PlanOverrides {
  if (!raw) return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new Error('STRATA_PLAN_LIMITS must be JSON, e.g. {"free":{"nodes":1000}}');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('STRATA_PLAN_LIMITS must be a JSON object keyed by plan id');
  const out: PlanOverrides = {};
  for (const [plan, limits] of Object.entries(v as Record<string, unknown>)) {
    if (!PLANS.some((p) => p.id === plan)) throw new Error(`STRATA_PLAN_LIMITS: unknown plan '${plan}'`);
    if (!limits || typeof limits !== 'object' || Array.isArray(limits)) throw new Error(`STRATA_PLAN_LIMITS.${plan} must be an object`);
    const l: Partial<PlanLimitsSpec> = {};
    for (const [k, val] of Object.entries(limits as Record<string, unknown>)) {
      if (k === 'managed_agents') {
        if (typeof val !== 'boolean') throw new Error(`STRATA_PLAN_LIMITS.${plan}.managed_agents must be a boolean`);
        l.managed_agents = val;
      } else if (k === 'nodes' || k === 'ingestion_credits_per_month' || k === 'agents' || k === 'agent_credits_per_month' || k === 'schedules' || k === 'mcp_connections') {
        if (val !== null && !(Number.isInteger(val) && (val as number) >= 0)) throw new Error(`STRATA_PLAN_LIMITS.${plan}.${k} must be a non-negative integer or null`);
        l[k] = val as number | null;
      } else if (k === 'requests_per_minute') {
        if (!(Number.isInteger(val) && (val as number) >= 1)) throw new Error(`STRATA_PLAN_LIMITS.${plan}.${k} must be a positive integer`);
        l.requests_per_minute = val as number;
      } else if (k === 'concurrent_runs') {
        if (!(Number.isInteger(val) && (val as number) >= 0)) throw new Error(`STRATA_PLAN_LIMITS.${plan}.${k} must be a non-negative integer`);
        l.concurrent_runs = val as number;
      } else throw new Error(`STRATA_PLAN_LIMITS.${plan}: unknown limit '${k}'`);
    }
    out[plan as PlanId] = l;
  }
  return out;
}
