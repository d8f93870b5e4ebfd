import type { BriefingChannel, BriefingMode, BriefingPausedReason, BriefingRunEnd, BriefingRunTrigger, BriefingStatus } from './briefing-records';

/**
 * Events of briefing schedules and their runs (REFERENCE §12.9), on `briefing-<org>:<id>`. The
 * webhook secret is never in them: only its hint.
 */
export const BriefingEventTypes = {
  BriefingScheduleCreated: 'BriefingScheduleCreated',
  BriefingScheduleReplaced: 'BriefingScheduleReplaced',
  BriefingScheduleUpdated: 'BriefingScheduleUpdated',
  BriefingSecretRotated: 'BriefingSecretRotated',
  BriefingScheduleDeleted: 'BriefingScheduleDeleted',
  BriefingRunQueued: 'BriefingRunQueued',
  BriefingRunStarted: 'BriefingRunStarted',
  BriefingDeliveryAttempted: 'BriefingDeliveryAttempted',
  BriefingRunFinished: 'BriefingRunFinished',
} as const;

/** The settable part of a schedule, as every create, replace and update carries it whole. */
export interface BriefingScheduleSettings {
  cron: string | null;
  interval_secs: number | null;
  timezone: string;
  mode: BriefingMode;
  only_on_change: boolean;
  status: BriefingStatus;
  paused_reason: BriefingPausedReason | null;
  next_run_at: number | null;
  consecutive_failures: number;
}

interface BriefingBase {
  org_id: string;
  schedule_id: string;
  at: number;
}

export interface BriefingScheduleCreatedData extends BriefingBase, BriefingScheduleSettings {
  project_uid: string;
  channel: BriefingChannel;
  recipient: string;
  secret_hint: string | null;
  created_by: string;
}

export interface BriefingScheduleReplacedData extends BriefingBase, BriefingScheduleSettings {
  replaced_by: string;
}

export interface BriefingScheduleUpdatedData extends BriefingBase, BriefingScheduleSettings {
  updated_by: string;
}

export interface BriefingSecretRotatedData extends BriefingBase {
  secret_hint: string;
  /** the previous secret still signs until then */
  previous_valid_until: number;
  rotated_by: string;
}

export interface BriefingScheduleDeletedData extends BriefingBase {
  deleted_by: string;
  /** the pending run cancelled with it, if any */
  cancelled_run_id: string | null;
}

export interface BriefingRunQueuedData extends BriefingBase {
  run_id: string;
  trigger: BriefingRunTrigger;
  scheduled_for: number;
  /** the schedule's next fire time after this one (cadence and catch-up move it) */
  next_run_at: number | null;
}

export interface BriefingRunStartedData extends BriefingBase {
  run_id: string;
}

export interface BriefingDeliveryAttemptedData extends BriefingBase {
  run_id: string;
  attempt: number;
  http_status: number | null;
  error: { code: string; message: string } | null;
  /** the next attempt's due time; null when this one ended the run */
  next_attempt_at: number | null;
  /** the version being delivered (the same on every attempt) and what the run found */
  brief_version: number;
  reused: boolean;
  material_change_count: number;
}

export interface BriefingRunFinishedData extends BriefingBase, BriefingRunEnd {
  run_id: string;
  /** the schedule's count after this run (a delivery resets it) */
  consecutive_failures: number;
}

export const BriefingStreams = {
  schedule: (org: string, id: string) => `briefing-${org}:${id}`,
};
