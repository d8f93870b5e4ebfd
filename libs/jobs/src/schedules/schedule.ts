/**
 * A recurring schedule: a cron pattern read in an IANA time zone, or a fixed interval. Each
 * firing time is a slot (Unix seconds); `last_slot` is the latest slot dealt with (fired or
 * reported missed), `next_run_at` the next one to deal with (null while disabled).
 */
export interface Schedule {
  id: string;
  org: string;
  cron: string | null;
  /** seconds between firings, counted from the Unix epoch (3600: on every hour, UTC) */
  interval_s: number | null;
  timezone: string;
  enabled: boolean;
  next_run_at: number | null;
  last_slot: number | null;
  /** the job a firing enqueues (kind, input); what firing does is up to the scheduler's firer */
  job_kind: string;
  job_input: unknown;
  created_at: number;
  updated_at: number;
}

/** When a schedule fires: exactly one of `cron` and `interval_s`. */
export interface ScheduleTiming {
  cron?: string | null;
  interval_s?: number | null;
  timezone?: string;
}
