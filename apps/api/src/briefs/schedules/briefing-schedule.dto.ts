import { BRIEFING_CHANNELS, BRIEFING_MODES, BriefingChannel, BriefingMode, MAX_INTERVAL_SECS, MIN_INTERVAL_SECS } from '@strata/domain/briefs';
import { Errors } from '@strata/domain/errors';
import { FieldRule, Field } from '../../platform/http/dto/field.decorator';
import { Integer, OneOf, Text } from '../../platform/http/dto/field-rules';

function Bool(description: string): FieldRule<boolean> {
  return { required: false, check: (v, f) => (typeof v === 'boolean' ? null : Errors.invalidField(f, `${f} must be a boolean`)), openapi: { type: Boolean, description } };
}

/** A key field of a schedule: PATCH refuses it whatever its value (422 `immutable_field`). */
function Immutable(description: string): FieldRule<never> {
  return { required: false, check: (_v, f) => Errors.immutableField(f), openapi: { type: String, description } };
}

/** POST /v1/briefings/schedules: the schedule's key (`project_uid`, `channel`, `recipient`) and its settings. */
export class PutBriefingScheduleDto {
  @Field(Text({ required: true, max: 128, description: 'the Project whose brief is sent' })) project_uid!: string;
  @Field(OneOf(BRIEFING_CHANNELS, { required: true })) channel!: BriefingChannel;
  @Field(Text({ required: true, max: 2048, description: '`user:<user_id>` (in_app), an e-mail address (email) or an https:// URL (webhook)' })) recipient!: string;
  @Field(Text({ max: 200, description: '5 fields; the minute is one number, so at most hourly', example: '0 9 * * MON' })) cron?: string;
  @Field(Integer({ min: MIN_INTERVAL_SECS, max: MAX_INTERVAL_SECS, description: 'seconds between runs, counted from creation' })) interval_secs?: number;
  @Field(Text({ max: 100, blank: 'invalid', description: 'IANA time zone the cron is read in (default UTC)', example: 'Europe/Paris' })) timezone?: string;
  @Field(OneOf(BRIEFING_MODES, { description: 'generation mode (default auto)' })) mode?: BriefingMode;
  @Field(Bool('skip delivery when nothing material changed since the last delivered version (default true)')) only_on_change?: boolean;
  @Field(Bool('create paused (default false)')) paused?: boolean;
  @Field(Bool('webhook: a new signing secret (returned once); the previous one signs too for 24 h')) rotate_secret?: boolean;
}

/** PATCH /v1/briefings/schedules/{id}. */
export class PatchBriefingScheduleDto {
  @Field(Immutable('immutable: 422')) project_uid?: never;
  @Field(Immutable('immutable: 422')) channel?: never;
  @Field(Immutable('immutable: 422')) recipient?: never;
  @Field(Bool('pause (true) or resume (false); resuming sets next_run_at to the next slot after now')) paused?: boolean;
  @Field(Text({ max: 200, description: 'a new cron (replaces interval_secs)' })) cron?: string;
  @Field(Integer({ min: MIN_INTERVAL_SECS, max: MAX_INTERVAL_SECS, description: 'a new interval (replaces cron)' })) interval_secs?: number;
  @Field(Text({ max: 100, blank: 'invalid' })) timezone?: string;
  @Field(OneOf(BRIEFING_MODES)) mode?: BriefingMode;
  @Field(Bool('skip delivery when nothing material changed')) only_on_change?: boolean;
  @Field(Bool('webhook: a new signing secret (returned once)')) rotate_secret?: boolean;
}
