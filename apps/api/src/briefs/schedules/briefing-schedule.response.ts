import { ApiProperty } from '@nestjs/swagger';
import { BRIEFING_CHANNELS, BRIEFING_MODES, BRIEFING_STATUSES } from '@strata/domain/briefs';
import { Bool, Int, Iso, ListOf, Nested, NullableInt, NullableIso, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

class RunError {
  @Str()
  code!: string;
  @Str()
  message!: string;
}

/** One run of a schedule (REFERENCE §12.7) */
export class BriefingRunRecord {
  @Str()
  id!: string;
  @Str()
  schedule_id!: string;
  @OneOf(['cadence', 'send_now', 'catch_up'])
  trigger!: string;
  @OneOf(['pending', 'running', 'delivered', 'skipped', 'failed'])
  status!: string;
  @Iso()
  scheduled_for!: string;
  @NullableIso()
  started_at!: string | null;
  @NullableIso()
  completed_at!: string | null;
  @NullableInt('the brief version the run sent or skipped')
  brief_version!: number | null;
  @ApiProperty({ type: Boolean, nullable: true, description: 'whether the regeneration reused the current version' })
  reused!: boolean | null;
  @Int()
  material_change_count!: number;
  @OneOf(['no_material_change', 'run_active', 'project_unavailable'], undefined, true)
  skip_reason!: string | null;
  @Int('delivery attempts')
  attempts!: number;
  @ApiProperty({ type: () => RunError, nullable: true })
  error!: RunError | null;
  @NullableInt('the webhook’s last answer')
  http_status!: number | null;
}

/** A briefing schedule (REFERENCE §12.7); the secret never, only its hint */
export class BriefingScheduleResponse {
  @Str()
  id!: string;
  @Str()
  project_uid!: string;
  @OneOf(BRIEFING_CHANNELS)
  channel!: string;
  @Str('user:<id> (in_app), an e-mail address or an https:// URL')
  recipient!: string;
  @NullableStr('5 fields; null with interval_secs')
  cron!: string | null;
  @NullableInt('null with cron')
  interval_secs!: number | null;
  @Str('IANA name')
  timezone!: string;
  @OneOf(BRIEFING_MODES)
  mode!: string;
  @Bool()
  only_on_change!: boolean;
  @OneOf(BRIEFING_STATUSES)
  status!: string;
  @OneOf(['requested', 'failing', 'endpoint_gone', 'recipient_not_member'], undefined, true)
  paused_reason!: string | null;
  @NullableIso()
  next_run_at!: string | null;
  @Int()
  consecutive_failures!: number;
  @NullableStr('webhook: the last 4 characters of the signing secret')
  secret_hint!: string | null;
  @Str('principal id')
  created_by!: string;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
}

export class BriefingSchedulePage extends OffsetPage {
  @ListOf(() => BriefingScheduleResponse)
  items!: BriefingScheduleResponse[];
}

/** `GET /v1/briefings/schedules/{id}`: with its runs, newest first (the 50 most recent) */
export class BriefingScheduleWithRuns extends BriefingScheduleResponse {
  @ListOf(() => BriefingRunRecord)
  runs!: BriefingRunRecord[];
}

/** A write of a schedule: a webhook one shows its signing secret when created or rotated, this once */
export class BriefingScheduleWritten extends BriefingScheduleResponse {
  @ApiProperty({ type: String, required: false, description: 'whsec_…: at creation and on rotate_secret only' })
  signing_secret?: string;
}

export class BriefingSendNowResponse {
  @Nested(() => BriefingRunRecord, 'trigger send_now')
  run!: BriefingRunRecord;
}

export class BriefingScheduleDeletedResponse {
  @Str()
  id!: string;
  @Bool('always true')
  deleted!: boolean;
}
