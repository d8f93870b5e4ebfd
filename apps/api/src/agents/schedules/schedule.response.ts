import { ApiProperty } from '@nestjs/swagger';
import { OVERLAP_POLICIES } from '@strata/domain/agents';
import { Bool, Int, Iso, ListOf, NullableIso, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

const OUTCOMES = ['started', 'skipped_overlap', 'skipped_paused', 'skipped_budget', 'skipped_plan', 'replaced_previous', 'failed', 'missed'] as const;

class ScheduleFiring {
  @Iso()
  scheduled_for!: string;
  @Iso()
  fired_at!: string;
  @OneOf(OUTCOMES)
  outcome!: string;
  @NullableStr()
  session_id!: string | null;
  @NullableStr()
  reason!: string | null;
}

/** An agent schedule (REFERENCE §16.11) */
export class AgentScheduleResponse {
  @Str()
  id!: string;
  @Str()
  org_id!: string;
  @Str()
  agent_id!: string;
  @Str()
  name!: string;
  @Str()
  cron!: string;
  @Str('IANA name')
  timezone!: string;
  @Str()
  message_template!: string;
  @Bool()
  enabled!: boolean;
  @OneOf(OVERLAP_POLICIES)
  overlap_policy!: string;
  @NullableIso('null while disabled')
  next_run_at!: string | null;
  @NullableIso()
  last_fired_at!: string | null;
  @OneOf(OUTCOMES, undefined, true)
  last_outcome!: string | null;
  @NullableStr()
  last_session_id!: string | null;
  @Int()
  fire_count!: number;
  @ListOf(() => ScheduleFiring, 'the last 10, newest first')
  recent!: ScheduleFiring[];
  @Str('user id')
  created_by!: string;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
}

export class AgentSchedulePage extends OffsetPage {
  @ListOf(() => AgentScheduleResponse)
  items!: AgentScheduleResponse[];
}

export class AgentScheduleDeleted {
  @Str()
  id!: string;
  @Bool('always true')
  deleted!: boolean;
}
