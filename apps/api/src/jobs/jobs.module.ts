import { Global, Inject, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import * as os from 'node:os';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { OPS_STORES, OpsStores } from '@strata/platform/storage/ops-stores';
import { JobRegistry } from '@strata/jobs/job-registry';
import { StrataMetrics } from '@strata/observability';
import { instrumentJobs } from './job-metrics';
import { JobsController } from './jobs.controller';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { JOB_STORE, JobStore } from '@strata/jobs/store/job-store.port';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobRunner } from '@strata/jobs/runner/job-runner';
import { SCHEDULE_STORE, ScheduleStore } from '@strata/jobs/schedules/schedule-store.port';
import { Scheduler, enqueueSlotJob } from '@strata/jobs/schedules/scheduler';
import { JobRetention } from '@strata/jobs/queue/job-retention';

/** How often the runner looks for jobs and renews its leases, and the scheduler for due slots. */
const RUNNER_POLL_S = 2;
const SCHEDULER_POLL_S = 5;

/**
 * Background jobs: global, so that the areas that start jobs and `POST /clear` share one
 * registry, and so that areas register their job handlers on the one runner (and their
 * schedules on the one scheduler) of the process.
 */
@Global()
@Module({
  imports: [ScopeModule],
  controllers: [JobsController],
  providers: [
    // the adapters are the platform's choice (ops.db embedded, MongoDB shared by the replicas)
    { provide: JOB_STORE, inject: [OPS_STORES], useFactory: (ops: OpsStores): JobStore => ops.jobs() },
    {
      provide: JobRegistry,
      inject: [CLOCK, JOB_STORE, OPS_STORES, JOB_QUEUE, JobRunner],
      useFactory: (clock: Clock, store: JobStore, ops: OpsStores, queue: JobQueue, runner: JobRunner) =>
        new JobRegistry(clock, store, { ownsAllJobs: !ops.shared }, queue, runner),
    },
    { provide: JOB_QUEUE, inject: [OPS_STORES], useFactory: (ops: OpsStores): JobQueue => ops.jobQueue() },
    { provide: SCHEDULE_STORE, inject: [OPS_STORES], useFactory: (ops: OpsStores): ScheduleStore => ops.schedules() },
    {
      provide: JobRunner,
      inject: [JOB_QUEUE, CLOCK, ID_GENERATOR, StrataMetrics],
      // the owner names this process in leases: another process takes its jobs once they lapse
      useFactory: (queue: JobQueue, clock: Clock, ids: IdGenerator, metrics: StrataMetrics) =>
        new JobRunner(queue, clock, {
          owner: `${os.hostname()}:${process.pid}:${ids.uuid().slice(0, 8)}`,
          onJobEnded: (e) => metrics.jobDuration.observe({ kind: e.kind, outcome: e.outcome }, e.seconds),
        }),
    },
    {
      provide: Scheduler,
      inject: [SCHEDULE_STORE, CLOCK, ID_GENERATOR, JOB_QUEUE],
      useFactory: (store: ScheduleStore, clock: Clock, ids: IdGenerator, queue: JobQueue) => new Scheduler(store, clock, ids, enqueueSlotJob(queue)),
    },
    {
      provide: JobRetention,
      inject: [JOB_QUEUE, JOB_STORE, CLOCK, STRATA_CONFIG],
      useFactory: (queue: JobQueue, store: JobStore, clock: Clock, cfg: StrataConfig) => new JobRetention(queue, store, clock, cfg.jobRetentionDays),
    },
  ],
  exports: [JobRegistry, JOB_QUEUE, JobRunner, Scheduler],
})
export class JobsModule implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(
    private readonly jobs: JobRegistry,
    @Inject(JOB_STORE) private readonly store: JobStore,
    @Inject(OPS_STORES) private readonly ops: OpsStores,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(SCHEDULE_STORE) private readonly schedules: ScheduleStore,
    private readonly runner: JobRunner,
    private readonly scheduler: Scheduler,
    private readonly retention: JobRetention,
    metrics: StrataMetrics,
    @Inject(CLOCK) clock: Clock,
  ) {
    instrumentJobs(metrics, queue, runner, clock);
  }

  /** handlers are registered while the modules initialize; polling starts once they all have */
  async onApplicationBootstrap(): Promise<void> {
    await this.retention.install(this.runner, this.scheduler);
    this.runner.start(RUNNER_POLL_S);
    this.scheduler.start(SCHEDULER_POLL_S);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.scheduler.stop();
    // running jobs are handed back to the queue, for the next process to resume
    await this.runner.stop();
    await this.jobs.flush();
    // the servers' store belongs to the server storage, which closes its client
    if (!this.ops.shared) await this.store.close();
    // queue and schedule handles are this module's own (MongoDB ones close nothing)
    await this.queue.close();
    await this.schedules.close();
  }
}
