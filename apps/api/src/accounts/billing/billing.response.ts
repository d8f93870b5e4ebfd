import { ApiProperty } from '@nestjs/swagger';
import { PLAN_IDS } from '@strata/domain/accounts';
import { Bool, Int, Iso, Nested, NullableIso, NullableNum, OneOf, Str } from '../../platform/http/responses/response-fields';

const limit = (description: string) => ApiProperty({ type: 'integer', nullable: true, description: `${description}; null: unlimited` });

export class PlanLimitsResponse {
  @limit('live nodes per organization')
  nodes!: number | null;
  @Int('API requests per minute per credential')
  requests_per_minute!: number;
  @limit('ingestion credits per calendar month (UTC)')
  ingestion_credits_per_month!: number | null;
  @Bool('managed agents are available')
  managed_agents!: boolean;
  @limit('non-archived managed agents')
  agents!: number | null;
  @limit('agent credits per calendar month (UTC)')
  agent_credits_per_month!: number | null;
  @Int('agent runs holding a run slot at once')
  concurrent_runs!: number;
  @limit('agent schedules')
  schedules!: number | null;
  @limit('MCP connections not disconnected')
  mcp_connections!: number | null;
}

/** GET /v1/billing/plans (items) */
export class PlanResponse {
  @OneOf(PLAN_IDS)
  id!: string;
  @Str()
  name!: string;
  @NullableNum('null: contact sales')
  price_usd_per_month!: number | null;
  @Nested(() => PlanLimitsResponse)
  limits!: PlanLimitsResponse;
}

/** GET /v1/billing/subscription */
export class SubscriptionResponse {
  @Str()
  org_id!: string;
  @OneOf(PLAN_IDS)
  plan!: string;
  @Str()
  plan_name!: string;
  @OneOf(['active'])
  status!: string;
  @NullableNum('null: contact sales')
  price_usd_per_month!: number | null;
  @Nested(() => PlanLimitsResponse)
  limits!: PlanLimitsResponse;
  @Iso('first instant of the current calendar month (UTC)')
  current_period_start!: string;
  @Iso('first instant of the next calendar month (UTC)')
  current_period_end!: string;
  @NullableIso('when the plan last changed')
  changed_at!: string | null;
  @Iso()
  created_at!: string;
}

/** POST /v1/billing/subscribe */
export class SubscribeResponse extends SubscriptionResponse {
  @Bool('false when the organization already had this plan')
  changed!: boolean;
}

class Period {
  @Iso()
  start!: string;
  @Iso()
  end!: string;
}

class UsedOfLimit {
  @Int()
  used!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null: unlimited' })
  limit!: number | null;
}

class Used {
  @Int()
  used!: number;
}

class Requests {
  @Int('requests this calendar month')
  this_period!: number;
  @Int()
  per_minute_limit!: number;
}

class Credits extends UsedOfLimit {
  @ApiProperty({ type: 'integer', nullable: true, description: 'null: unlimited' })
  left!: number | null;
}

class AgentCredits extends Credits {
  @Int('used today (UTC)')
  today!: number;
}

class LlmUsage {
  @Int()
  calls!: number;
  @Int()
  input_tokens!: number;
  @Int()
  output_tokens!: number;
}

class ActiveAgents {
  @Int('non-archived managed agents')
  active!: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null: unlimited' })
  limit!: number | null;
}

class Runs {
  @Int('agent runs started this calendar month')
  this_period!: number;
  @Int()
  running!: number;
  @Int()
  queued!: number;
  @Int()
  concurrent_limit!: number;
}

/** GET /v1/usage: this calendar month's figures beside the plan's limits */
export class UsageResponse {
  @Str()
  org_id!: string;
  @OneOf(PLAN_IDS)
  plan!: string;
  @Nested(() => Period)
  period!: Period;
  @Nested(() => UsedOfLimit, 'live nodes')
  nodes!: UsedOfLimit;
  @Nested(() => Used, 'live edges')
  edges!: Used;
  @Nested(() => Requests)
  requests!: Requests;
  @Nested(() => Credits, 'ingestion credits')
  credits!: Credits;
  @Nested(() => LlmUsage, 'language-model calls made for the organization this month')
  llm!: LlmUsage;
  @Nested(() => ActiveAgents)
  agents!: ActiveAgents;
  @Nested(() => AgentCredits)
  agent_credits!: AgentCredits;
  @Nested(() => Runs)
  runs!: Runs;
  @Nested(() => UsedOfLimit, 'agent schedules')
  schedules!: UsedOfLimit;
  @Nested(() => UsedOfLimit, 'MCP connections not disconnected')
  mcp_connections!: UsedOfLimit;
}
