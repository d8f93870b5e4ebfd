import type { Clock } from '@strata/domain/time';
import type { JobHandler, JobRunner } from '../runner/job-runner';
import type { Scheduler } from '../schedules/scheduler';
import type { JobStore } from '../store/job-store.port';
import type { JobQueue } from './job-queue.port';

/** the durable job that forgets ended jobs */
export const JOB_RETENTION_JOB = 'job_retention';
/** its one platform-wide schedule (schedules are keyed by organization: this is none of them) */
export const JOB_RETENTION_SCHEDULE = { org: '_platform', id: 'job-retention' } as const;
/** REFERENCE §9.4 keeps finished jobs at least 7 days; one more, so that none is dropped early by a slot's lateness */
export const DEFAULT_JOB_RETENTION_DAYS = 8;
/** a slot an hour: a job is forgotten at most an hour after its retention ends */
const SLOT_S = 3600;

/**
 * Retention of ended jobs (completed, failed, cancelled): a job of the durable runner, fired
 * every hour by a schedule of the platform scheduler (a slot fires once across replicas),
 * forgets those that ended more than the retention ago on the injected clock: from the durable
 * queue, and from the job store's older §9.4 records. Active jobs are never touched.
 */
export class JobRetention implements JobHandler {
  constructor(
    private readonly queue: JobQueue,
    private readonly store: JobStore | null,
    private readonly clock: Clock,
    private readonly retentionDays: number = DEFAULT_JOB_RETENTION_DAYS,
  ) {}

  /** Registers the handler on the runner (before it starts) and puts the hourly schedule. */
  async install(runner: JobRunner, scheduler: Scheduler): Promise<void> {
    runner.register(JOB_RETENTION_JOB, this);
    await scheduler.put({ ...JOB_RETENTION_SCHEDULE, upsert: true, interval_s: SLOT_S, job_kind: JOB_RETENTION_JOB, job_input: null });
  }

  async run(): Promise<{ removed_jobs: number }> {
    const cutoff = this.clock.now() - this.retentionDays * 86_400;
    const removed = await this.queue.removeFinishedBefore(cutoff);
    await this.store?.removeFinishedBefore(cutoff);
    return { removed_jobs: removed };
  }
}
