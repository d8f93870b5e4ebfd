import { OVERLAP_POLICIES, OverlapPolicy, ScheduleInput } from '@strata/domain/agents';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, Text } from '../../platform/http/dto/field-rules';
import { Bool, Content } from '../agent-fields';

/** The fields of a schedule (REFERENCE §16.11); PATCH takes the same, all optional (agent_id immutable). */
class ScheduleFieldsDto {
  @Field(Text({ max: 200, description: '5 fields (minute hour day-of-month month day-of-week) or @hourly, @daily, @weekly, @monthly, @yearly', example: '0 7 * * 1-5' })) cron?: string;
  @Field(Text({ max: 100, description: 'IANA time zone the pattern is read in (default UTC)', example: 'Europe/Paris' })) timezone?: string;
  @Field(Content({ max: 10_000, description: 'the first message of each firing; {{date}}, {{time}}, {{datetime}}, {{schedule_name}}, {{agent_name}}', example: 'Write the briefing for {{date}}.' }))
  message_template?: string;
  @Field(Bool({ description: 'default true' })) enabled?: boolean;
  @Field(OneOf(OVERLAP_POLICIES, { description: 'when the previous firing’s run is still going: forbid (skip, default), allow, replace (cancel it)' })) overlap_policy?: OverlapPolicy;
}

export class CreateScheduleDto extends ScheduleFieldsDto {
  @Field(Text({ required: true, max: 128, description: 'the agent the schedule runs (not archived)' })) agent_id!: string;
  @Field(Text({ required: true, max: 100, example: 'Weekday briefing' })) name!: string;
}

export class UpdateScheduleDto extends ScheduleFieldsDto {
  @Field(Text({ max: 128, description: 'immutable: 422 immutable_field when it differs' })) agent_id?: string;
  @Field(Text({ max: 100 })) name?: string;
}

export function scheduleInput(dto: CreateScheduleDto | UpdateScheduleDto): ScheduleInput {
  const out: ScheduleInput = {};
  for (const k of ['agent_id', 'name', 'cron', 'timezone', 'message_template', 'enabled', 'overlap_policy'] as const) {
    const v = dto[k];
    if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  }
  return out;
}
