import * as os from 'node:os';
import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobHandler, JobRunner } from '@strata/jobs/runner/job-runner';
import { AgentsStore } from '../agents-store';
import { AGENT_RUN_JOB, AgentRunInput, AgentRunJob } from './agent-run.job';

/** runs in flight per process: most of their time is spent waiting on a model or a person */
const CONCURRENCY = 64;
const POLL_S = 1;

/**
 * Agent runs as durable jobs (libs/jobs): one job per run, the session its serial group so a
 * session's runs never overlap, on a runner of their own so that runs waiting for a model or
 * an answer never hold up ingestion. A run enqueued is started at once (`tick`); a process
 * that stops hands its runs back to the queue, and the next one resumes them.
 *
 * The log, not the queue, says which runs are unfinished: the embedded queue (`ops.db`) is not
 * fsynced at each write, so a machine that lost power may come back without the job of a run
 * it had acknowledged. At start every run the read model shows unfinished is enqueued again
 * (its dedupe key makes that a no-op for a job still pending or running).
 */
@Injectable()
export class AgentRuns implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly log = new Logger('AgentRuns');
  private readonly runner: JobRunner;

  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(CLOCK) clock: Clock,
    @Inject(ID_GENERATOR) ids: IdGenerator,
    job: AgentRunJob,
    private readonly store: AgentsStore,
  ) {
    this.runner = new JobRunner(queue, clock, { owner: `${os.hostname()}:${process.pid}:agents:${ids.uuid().slice(0, 8)}`, concurrency: CONCURRENCY });
    this.runner.register(AGENT_RUN_JOB, job);
  }

  /** another kind of agent job on this runner (schedule firings) */
  register(kind: string, handler: JobHandler): void {
    this.runner.register(kind, handler);
  }

  /** the run's job: started here at once when its session has no earlier run pending (claimed in the enqueue's own write), else a claim round */
  async enqueue(org: string, input: AgentRunInput): Promise<void> {
    await this.runner.enqueueAndStart({ kind: AGENT_RUN_JOB, org, input, dedupeKey: `agent-run:${input.run_id}`, serialGroup: `agent-session:${input.session_id}` });
  }

  /** looks for runnable runs now rather than at the next poll */
  kick(): void {
    this.runner.claimMore().catch((err: Error) => this.log.error(`agent runner round failed: ${err.message}`));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.requeueUnfinished().catch((err: Error) => this.log.error(`re-enqueueing unfinished runs failed: ${err.message}`));
    this.runner.start(POLL_S);
    this.kick();
  }

  private async requeueUnfinished(): Promise<void> {
    await this.store.catchUp();
    for (const r of this.store.read.unfinishedRuns()) {
      const { created } = await this.queue.enqueue({ kind: AGENT_RUN_JOB, org: r.org_id, input: { session_id: r.session_id, run_id: r.id }, dedupeKey: `agent-run:${r.id}`, serialGroup: `agent-session:${r.session_id}` });
      if (created) this.log.warn(`run ${r.id} had no job: enqueued again`);
    }
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
