import type { BriefsReadModel } from '@strata/projections/briefs/briefs-read-model';
import { FailingSchedule, ScheduleFailures } from './schedule-failures.port';

/** The runs read back to find where a failing streak began (the read model keeps 50 per schedule). */
const HISTORY = 50;
/** §14.2: a schedule fails once its 3 most recent finished runs failed. */
const STREAK = 3;

/**
 * `schedule_failing` from the briefing schedules' read model: a schedule whose most recent
 * finished runs failed STREAK times in a row. It is read when asked (no copy of its own), so a
 * schedule that recovers or is deleted simply stops being listed.
 */
export class BriefingScheduleFailures implements ScheduleFailures {
  constructor(private readonly briefs: BriefsReadModel) {}

  async failing(org: string): Promise<FailingSchedule[]> {
    const out: FailingSchedule[] = [];
    for (const { schedule } of this.briefs.failingSchedules(org, STREAK)) {
      const runs = this.briefs.recentFinishedRuns(org, schedule.id, HISTORY);
      let streak = 0;
      while (streak < runs.length && runs[streak].status === 'failed') streak++;
      // runs are newest first: the streak became STREAK long when its third oldest run finished
      const since = runs[streak - STREAK].completed_at!;
      out.push({
        schedule_id: schedule.id,
        project_uid: schedule.project_uid,
        label: `${schedule.channel} briefing`,
        failing_since: since,
        recovered_at: null,
        last_errors: runs.slice(0, STREAK).map((r) => r.error),
        reopen_count: 0,
      });
    }
    return out;
  }
}
