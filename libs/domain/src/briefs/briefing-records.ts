import type { Change } from './brief-records';

/**
 * Briefing schedules and their runs (REFERENCE §12.7), as the read model keeps them. Times are
 * Unix seconds here; the /v1 routes show them as ISO strings.
 */
export type BriefingChannel = 'in_app' | 'webhook' | 'email';
export const BRIEFING_CHANNELS: readonly BriefingChannel[] = ['in_app', 'webhook', 'email'];
export type BriefingMode = 'auto' | 'structural' | 'llm';
export const BRIEFING_MODES: readonly BriefingMode[] = ['auto', 'structural', 'llm'];
export type BriefingStatus = 'active' | 'paused';
export const BRIEFING_STATUSES: readonly BriefingStatus[] = ['active', 'paused'];
export type BriefingPausedReason = 'requested' | 'failing' | 'endpoint_gone' | 'recipient_not_member';

export interface BriefingSchedule {
  id: string;
  project_uid: string;
  channel: BriefingChannel;
  recipient: string;
  cron: string | null;
  interval_secs: number | null;
  timezone: string;
  mode: BriefingMode;
  only_on_change: boolean;
  status: BriefingStatus;
  paused_reason: BriefingPausedReason | null;
  next_run_at: number | null;
  consecutive_failures: number;
  secret_hint: string | null;
  created_by: string;
  created_at: number;
  updated_at: number;
}

export type BriefingRunTrigger = 'cadence' | 'send_now' | 'catch_up';
export type BriefingRunStatus = 'pending' | 'running' | 'delivered' | 'skipped' | 'failed';
export type BriefingSkipReason = 'no_material_change' | 'run_active' | 'project_unavailable';
export const ACTIVE_RUN_STATUSES: readonly BriefingRunStatus[] = ['pending', 'running'];

export interface BriefingRun {
  id: string;
  schedule_id: string;
  trigger: BriefingRunTrigger;
  status: BriefingRunStatus;
  scheduled_for: number;
  started_at: number | null;
  completed_at: number | null;
  brief_version: number | null;
  reused: boolean | null;
  material_change_count: number;
  skip_reason: BriefingSkipReason | null;
  attempts: number;
  error: { code: string; message: string } | null;
  http_status: number | null;
  /** when the next delivery attempt is due (a retry); never shown */
  next_attempt_at: number | null;
}

/** What a delivery sends besides the version: the material changes since the last delivered version. */
export interface BriefingMaterial {
  material_change_count: number;
  material_changes: Change[];
}

/** A run's end as the log records it. */
export interface BriefingRunEnd {
  status: 'delivered' | 'skipped' | 'failed';
  brief_version: number | null;
  reused: boolean | null;
  material_change_count: number;
  skip_reason: BriefingSkipReason | null;
  error: { code: string; message: string } | null;
}
