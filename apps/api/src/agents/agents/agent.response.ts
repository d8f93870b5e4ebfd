import { ApiProperty } from '@nestjs/swagger';
import { TEMPLATE_TYPES } from '@strata/domain/agents';
import type { NodeRecord } from '@strata/domain/records';
import { Bool, Int, Iso, ListOf, ListOfShared, Nested, NullableIso, NullableStr, OffsetPage, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';
import { ToolApprovalRecord } from '../../platform/http/responses/tool-approval-record';

class AgentScope {
  @ApiProperty({ type: [String], required: false, description: 'absent: no Space restriction' })
  space_uids?: string[];
  @ApiProperty({ type: [String], required: false, description: 'absent: no Project restriction' })
  project_uids?: string[];
}

class AgentBudget {
  @Int()
  daily_credit_budget!: number;
  @Int('credits since 00:00 UTC')
  used_today!: number;
  @Int()
  remaining_today!: number;
  @Iso('the next 00:00 UTC')
  resets_at!: string;
}

class AgentUsage {
  @Int()
  runs!: number;
  @Int()
  credits!: number;
  @Int()
  input_tokens!: number;
  @Int()
  output_tokens!: number;
}

/** A managed agent (REFERENCE §16.3) */
export class AgentResponse {
  @Str()
  id!: string;
  @Str()
  org_id!: string;
  @Str()
  name!: string;
  @NullableStr()
  description!: string | null;
  @OneOf(TEMPLATE_TYPES)
  template_type!: string;
  @Str()
  instructions!: string;
  @Str()
  model!: string;
  @Int()
  daily_credit_budget!: number;
  @Int('model calls per run')
  max_steps!: number;
  @Strings('built-in tool names')
  tools!: string[];
  @Nested(() => AgentScope, '{} for the whole graph')
  scope!: AgentScope;
  @Bool()
  paused!: boolean;
  @OneOf(['active', 'paused', 'archived'])
  status!: string;
  @Str('its Agent node')
  node_uid!: string;
  @Nested(() => AgentBudget)
  budget!: AgentBudget;
  @Nested(() => AgentUsage)
  usage!: AgentUsage;
  @Int()
  active_sessions!: number;
  @NullableIso()
  last_run_at!: string | null;
  @Str('user id')
  created_by!: string;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
  @NullableIso()
  archived_at!: string | null;
}

export class AgentPage extends OffsetPage {
  @ListOf(() => AgentResponse)
  items!: AgentResponse[];
}

class SuggestedSchedule {
  @Str()
  name!: string;
  @Str()
  cron!: string;
  @Str()
  timezone!: string;
  @Str()
  message_template!: string;
}

/** An agent template (REFERENCE §16.3) */
export class AgentTemplateResponse {
  @OneOf(TEMPLATE_TYPES)
  template_type!: string;
  @Str()
  name!: string;
  @Str()
  description!: string;
  @Str()
  instructions!: string;
  @Strings()
  tools!: string[];
  @Int()
  daily_credit_budget!: number;
  @ListOf(() => SuggestedSchedule)
  suggested_schedules!: SuggestedSchedule[];
}

class PendingInputRef {
  @Str()
  session_id!: string;
  @Str()
  request_id!: string;
  @Str()
  prompt!: string;
  @Iso()
  expires_at!: string;
}

class UpcomingSchedule {
  @Str()
  schedule_id!: string;
  @Str()
  name!: string;
  @Iso()
  next_run_at!: string;
}

/** `GET /v1/agents/{id}/work` */
export class AgentWorkResponse {
  @Str()
  agent_id!: string;
  @Int()
  active_sessions!: number;
  @ListOf(() => ToolApprovalRecord)
  pending_decisions!: ToolApprovalRecord[];
  @ListOf(() => PendingInputRef)
  pending_inputs!: PendingInputRef[];
  @ListOf(() => UpcomingSchedule, 'the next 7 days')
  upcoming_schedules!: UpcomingSchedule[];
}

/** `GET /v1/agents/{id}/articles`: live Articles with this agent_id, newest first */
export class AgentArticlePage extends OffsetPage {
  @ListOfShared('NodeRecord')
  items!: NodeRecord[];
}
