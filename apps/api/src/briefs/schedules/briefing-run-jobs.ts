import { Inject, Injectable } from '@nestjs/common';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';

export const BRIEFING_RUN_JOB_KIND = 'briefing_run';

/** A briefing run's job: one per attempt (the first, and each retry once it is due). */
export interface BriefingRunJobInput {
  schedule_id: string;
  run_id: string;
  attempt: number;
  title: string;
}

/** Enqueues and cancels the jobs that carry briefing runs out, on the platform's durable runner. */
@Injectable()
export class BriefingRunJobs {
  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    private readonly runner: JobRunner,
  ) {}

  /** Idempotent per attempt: while that attempt's job is pending or running, no second one. */
  async enqueue(org: string, scheduleId: string, runId: string, attempt: number): Promise<void> {
    const input: BriefingRunJobInput = { schedule_id: scheduleId, run_id: runId, attempt, title: `Briefing run ${runId}` };
    await this.queue.enqueue({ kind: BRIEFING_RUN_JOB_KIND, org, input, dedupeKey: `briefing:${runId}:${attempt}` });
    this.runner.wake();
  }

  /** The pending job of a cancelled run, if it has not started. */
  async cancel(org: string, runId: string): Promise<void> {
    for (const j of await this.queue.list(org, { kind: BRIEFING_RUN_JOB_KIND, status: 'pending' }))
      if ((j.input as BriefingRunJobInput).run_id === runId) await this.queue.requestCancel(org, j.id);
  }
}
