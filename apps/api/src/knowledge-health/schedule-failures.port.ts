/**
 * The hook for `schedule_failing` (REFERENCE §14.2): briefing schedules whose 3 most recent
 * finished runs failed. Briefing schedules are their own area's records; whoever builds them
 * provides this token (an optional provider: without one the kind never appears).
 */
export const SCHEDULE_FAILURES = Symbol('SCHEDULE_FAILURES');

export interface FailingSchedule {
  schedule_id: string;
  /** the schedule's Project (its `project_uids`, and what decides who may see it) */
  project_uid: string;
  label: string | null;
  /** Unix seconds: when the third consecutive failed run finished */
  failing_since: number;
  /** when the failing ended, for a schedule that recovered since (resolved), else null */
  recovered_at: number | null;
  /** the errors of the failed runs, newest first */
  last_errors: unknown[];
  /** how many times it started failing again after recovering */
  reopen_count: number;
}

export interface ScheduleFailures {
  failing(org: string): Promise<FailingSchedule[]>;
}
