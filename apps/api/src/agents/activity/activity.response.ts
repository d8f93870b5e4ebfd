import { ACTIVITY_TYPES } from '@strata/domain/agents';
import { Int, Iso, Json, ListOf, NullableStr, OffsetPage, OneOf, Str } from '../../platform/http/responses/response-fields';

/** An activity item (REFERENCE §16.12) */
class ActivityItem {
  @Int('increases per organization in log order')
  seq!: number;
  @OneOf(ACTIVITY_TYPES)
  type!: string;
  @NullableStr()
  agent_id!: string | null;
  @NullableStr()
  agent_name!: string | null;
  @NullableStr()
  session_id!: string | null;
  @NullableStr()
  run_id!: string | null;
  @NullableStr()
  schedule_id!: string | null;
  @NullableStr()
  approval_id!: string | null;
  @NullableStr()
  connection_id!: string | null;
  @Str()
  summary!: string;
  @Json('by type')
  data!: Record<string, unknown>;
  @Iso()
  created_at!: string;
}

export class ActivityPage extends OffsetPage {
  @ListOf(() => ActivityItem, 'seq descending')
  items!: ActivityItem[];
}
