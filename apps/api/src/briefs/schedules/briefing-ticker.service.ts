import { Inject, Injectable, Logger } from '@nestjs/common';
import { catchUp, decideFire, decideRetime, timingOf } from '@strata/domain/briefs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { BriefingLog, systemContext } from './briefing-log';
import { BriefingRunJobs } from './briefing-run-jobs';
import { PollingLoop } from '@strata/jobs/polling-loop';

/** What one tick did (tests and logs). */
export interface BriefingTickReport {
  fired: { schedule_id: string; run_id: string; slot: number; skipped: boolean }[];
  retried: { run_id: string; attempt: number }[];
  errors: string[];
}

/**
 * Fires briefing schedules on the §12.7 timing (cron in a zone with its DST rules, or intervals
 * from creation) from the read model's due list, as runs carried out by jobs on the platform's
 * durable runner; queues each delivery retry once it is due. Every fire is appended with the
 * schedule stream's expected revision, so a slot fires once however many replicas tick. Driven
 * by `tick()` (tests move a FixedClock and call it) or by `start()`'s unref'd timer.
 */
@Injectable()
export class BriefingTicker {
  private readonly logger = new Logger('BriefingTicker');
  private readonly loop = new PollingLoop(
    async () => (await this.tick()).errors.forEach((e) => this.logger.warn(`briefing tick: ${e}`)),
    (err) => this.logger.error(`briefing tick failed: ${err.message}`),
  );

  constructor(
    private readonly log: BriefingLog,
    private readonly jobs: BriefingRunJobs,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  /**
   * Start-up: fire times missed while the service was stopped collapse into one `catch_up` run
   * when the latest is under one period old; older ones are dropped and the schedule moves on.
   */
  async catchUpAtStartup(): Promise<BriefingTickReport> {
    const report: BriefingTickReport = { fired: [], retried: [], errors: [] };
    const now = this.clock.now();
    for (const row of this.log.briefs.dueSchedules(now, 10_000)) {
      const s = row.schedule;
      const org = row.org_id;
      const plan = catchUp(timingOf(s), s.next_run_at, now);
      try {
        if (plan.catch_up === null) {
          await this.log.run(systemContext(org, 'briefing-catch-up'), s.id, (r, tx) => ({ events: r ? decideRetime(r.schedule, plan.next_run_at, { org, by: 'system', now: tx.now }) : [], result: null }));
          continue;
        }
        await this.fire(org, s.id, plan.catch_up, 'catch_up', report);
      } catch (err) {
        report.errors.push(`${s.id}: ${(err as Error).message}`);
      }
    }
    await this.sweep(now, report);
    return report;
  }

  /** One round: due schedules fire (cadence), due retries and unstarted runs get their jobs. */
  async tick(): Promise<BriefingTickReport> {
    const report: BriefingTickReport = { fired: [], retried: [], errors: [] };
    const now = this.clock.now();
    for (const row of this.log.briefs.dueSchedules(now)) {
      // several slots passed since the last round (a slow round, a moved clock): the latest fires
      const plan = catchUp(timingOf(row.schedule), row.schedule.next_run_at, now);
      const slot = plan.catch_up ?? row.schedule.next_run_at!;
      try {
        await this.fire(row.org_id, row.schedule.id, slot, 'cadence', report);
      } catch (err) {
        report.errors.push(`${row.schedule.id}: ${(err as Error).message}`);
      }
    }
    await this.sweep(now, report);
    return report;
  }

  private async fire(org: string, scheduleId: string, slot: number, trigger: 'cadence' | 'catch_up', report: BriefingTickReport): Promise<void> {
    const runId = this.ids.uuid();
    const skipped = await this.log.run(systemContext(org, `briefing-${trigger}`), scheduleId, (r, tx) => {
      // another replica fired it, or it was paused or deleted meanwhile
      if (!r || r.schedule.status !== 'active' || r.schedule.next_run_at === null || r.schedule.next_run_at > tx.now) return { events: [], result: null };
      const active = this.log.briefs.activeRun(org, scheduleId);
      return { events: decideFire(r.schedule, active, slot, trigger, { org, by: 'system', now: tx.now, run_id: runId }), result: active !== null };
    });
    if (skipped === null) return;
    report.fired.push({ schedule_id: scheduleId, run_id: runId, slot, skipped });
    if (!skipped) await this.jobs.enqueue(org, scheduleId, runId, 1);
  }

  /** Jobs for due retries and for runs queued whose job never got enqueued (a crash between the two). */
  private async sweep(now: number, report: BriefingTickReport): Promise<void> {
    for (const { org_id, run } of this.log.briefs.dueAttempts(now)) {
      try {
        await this.jobs.enqueue(org_id, run.schedule_id, run.id, run.attempts + 1);
        report.retried.push({ run_id: run.id, attempt: run.attempts + 1 });
      } catch (err) {
        report.errors.push(`${run.id}: ${(err as Error).message}`);
      }
    }
    for (const { org_id, run } of this.log.briefs.pendingRuns()) await this.jobs.enqueue(org_id, run.schedule_id, run.id, 1).catch((err: Error) => report.errors.push(`${run.id}: ${err.message}`));
  }

  start(pollSeconds = 5): void {
    this.loop.start(pollSeconds);
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
