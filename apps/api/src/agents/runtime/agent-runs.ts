import * as os from 'node:os';
import { Inject, Injectable, OnApplicationBootstrap, BeforeApplicationShutdown, Logger } from '@nestjs/common';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { JobHandler, JobRunner } from '@strata/jobs/runner/job-runner';
import { AGENT_RUN_JOB, AgentRunInput, AgentRunJob } from './agent-run.job';

/** runs in flight per process: most of their time is spent waiting on a model or a person */
const CONCURRENCY = 64;
const POLL_S = 1;

/**
 * Agent runs as durable jobs (libs/jobs): one job per run, the session its serial group so a
 * session's runs never overlap, on a runner of their own so that runs waiting for a model or
 * an answer never hold up ingestion. A run enqueued is started at once (`tick`); a process
 * that stops hands its runs back to the queue, and the next one resumes them.
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
  ) {
    this.runner = new JobRunner(queue, clock, { owner: `${os.hostname()}:${process.pid}:agents:${ids.uuid().slice(0, 8)}`, concurrency: CONCURRENCY });
    this.runner.register(AGENT_RUN_JOB, job);
  }

  /** another kind of agent job on this runner (schedule firings) */
  register(kind: string, handler: JobHandler): void {
    this.runner.register(kind, handler);
  }

  async enqueue(org: string, input: AgentRunInput): Promise<void> {
    await this.queue.enqueue({ kind: AGENT_RUN_JOB, org, input, dedupeKey: `agent-run:${input.run_id}`, serialGroup: `agent-session:${input.session_id}` });
    this.kick();
  }

  /** looks for runnable runs now rather than at the next poll */
  kick(): void {
    this.runner.claimMore().catch((err: Error) => this.log.error(`agent runner round failed: ${err.message}`));
  }

  onApplicationBootstrap(): void {
    this.runner.start(POLL_S);
    this.kick();
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.runner.stop();
  }
}
