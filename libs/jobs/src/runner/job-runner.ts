import { Logger } from '@nestjs/common';
import { Clock } from '@strata/domain/time';
import { EnqueueRequest, JobQueue, QueuedJob } from '../queue/job-queue.port';
import { PollingLoop } from '../polling-loop';

/** Why a running job's signal was aborted. */
export type JobStopReason = 'cancelled' | 'lease_lost' | 'shutdown';

/** The `reason` of an aborted job signal. */
export class JobStopped extends Error {
  constructor(readonly why: JobStopReason) {
    super(`job stopped: ${why}`);
    this.name = 'JobStopped';
  }
}

export interface JobContext {
  /**
   * Aborted when the job is cancelled, when this runner lost its lease (another runner has
   * the job now: stop without writing anything else), or when the runner shuts down. Its
   * reason is a JobStopped. Handlers check it between steps.
   */
  readonly signal: AbortSignal;
  readonly clock: Clock;
  /** records progress (opaque JSON, shown to whoever polls the job) */
  progress(progress: unknown): Promise<void>;
  /**
   * Records the cursor to resume from, with progress when given: if this runner dies, the
   * runner that claims the job next gets it as `job.checkpoint`.
   */
  checkpoint(cursor: unknown, progress?: unknown): Promise<void>;
}

/** Runs the jobs of one kind; what it returns is the job's result, what it throws fails the job. */
export interface JobHandler {
  run(job: QueuedJob, ctx: JobContext): Promise<unknown>;
}

export interface JobRunnerOptions {
  /** this runner's name in leases: unique per process (host, pid, random) */
  owner: string;
  /** how long a claim lasts without renewal; a dead runner's jobs wait this long (default 60) */
  leaseSeconds?: number;
  /** jobs run at once by this runner (default 2) */
  concurrency?: number;
  /** a job claimed more often than this (its runner died each time) fails instead of running (default 5) */
  maxAttempts?: number;
  /**
   * how long `stop()` waits for handlers to honour their aborted signal (default 10 s); a job
   * whose handler ignores it keeps its lease, which lapses, and another runner resumes it
   */
  stopWaitMs?: number;
  /** told of each job this runner ran to its end (metrics); `seconds` is measured, not clock time */
  onJobEnded?: (ended: { kind: string; outcome: JobOutcome; seconds: number }) => void;
}

/** How a run ended on this runner: a lost lease is not an end (another runner goes on). */
export type JobOutcome = 'completed' | 'failed' | 'cancelled' | 'released';

interface Running {
  job: QueuedJob;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Claims jobs of the kinds it has handlers for from the durable queue and runs them, at most
 * `concurrency` at a time. Each tick renews the leases of the jobs it runs (and so learns of
 * cancel requests and lost leases), then claims more while it has room. Driven by `tick()`
 * (tests, with a fixed clock) or by `start()`, which polls on an unref'd timer.
 */
export class JobRunner {
  private readonly log = new Logger('JobRunner');
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, Running>();
  private readonly leaseSeconds: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private readonly loop = new PollingLoop(() => this.tick(), (err) => this.log.error(`job runner round failed: ${err.message}`));
  private stopping = false;

  constructor(
    private readonly queue: JobQueue,
    private readonly clock: Clock,
    private readonly opts: JobRunnerOptions,
  ) {
    this.leaseSeconds = opts.leaseSeconds ?? 60;
    this.concurrency = opts.concurrency ?? 2;
    this.maxAttempts = opts.maxAttempts ?? 5;
  }

  register(kind: string, handler: JobHandler): this {
    if (this.handlers.has(kind)) throw new Error(`a handler for job kind ${kind} is already registered`);
    this.handlers.set(kind, handler);
    return this;
  }

  /** how many jobs of each kind this runner is running now */
  runningByKind(): Map<string, number> {
    const out = new Map<string, number>();
    for (const r of this.running.values()) out.set(r.job.kind, (out.get(r.job.kind) ?? 0) + 1);
    return out;
  }

  /** ids of the jobs this runner is running now */
  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** One round: renew (or give up) the jobs it runs, then claim and start new ones. */
  async tick(): Promise<void> {
    for (const r of [...this.running.values()]) {
      if (r.controller.signal.aborted) continue;
      const state = await this.queue.renew(r.job.id, this.opts.owner, this.leaseSeconds);
      if (state === 'cancel_requested') r.controller.abort(new JobStopped('cancelled'));
      else if (state === 'lost') r.controller.abort(new JobStopped('lease_lost'));
    }
    await this.claimMore();
  }

  /**
   * Claims and starts runnable jobs while it has room, without renewing the leases of the jobs
   * it runs (a job was just enqueued: renewing every running job first would write once per
   * job for each one enqueued).
   */
  async claimMore(): Promise<void> {
    const kinds = [...this.handlers.keys()];
    while (!this.stopping && this.running.size < this.concurrency) {
      const job = await this.queue.claim(kinds, this.opts.owner, this.leaseSeconds);
      if (!job) break;
      if (job.cancel_requested) {
        await this.queue.acknowledgeCancel(job.id, this.opts.owner);
      } else if (job.attempts > this.maxAttempts) {
        await this.queue.fail(job.id, this.opts.owner, `gave up after ${this.maxAttempts} attempts: its runner stopped each time`);
      } else {
        this.startJob(job);
      }
    }
  }

  /**
   * Enqueues a job of a kind this runner handles and starts it here at once when it may run
   * now (its serial group free, this runner below its concurrency): claimed in the enqueue's
   * own write where the queue can (`enqueueClaimed`), without a claim round of its own. A job
   * claimed so holds a lease like any other: renewed by `tick`, taken over by another runner if
   * this one dies. Otherwise (the job must wait, or the queue cannot) a claim round follows, as
   * after any enqueue (`claimMore`, not awaited: its failure is logged, the job stays queued).
   */
  async enqueueAndStart(req: EnqueueRequest): Promise<{ job: QueuedJob; created: boolean; started: boolean }> {
    if (this.queue.enqueueClaimed && this.handlers.has(req.kind) && !this.stopping && this.running.size < this.concurrency) {
      const r = await this.queue.enqueueClaimed(req, this.opts.owner, this.leaseSeconds);
      if (r.claimed && !this.stopping && this.running.size < this.concurrency) {
        this.startJob(r.job);
        return { job: r.job, created: r.created, started: true };
      }
      // the room went during the write: the job goes back to the queue for the next round
      if (r.claimed) await this.queue.release(r.job.id, this.opts.owner);
      this.claimSoon();
      return { job: r.job, created: r.created, started: false };
    }
    const r = await this.queue.enqueue(req);
    this.claimSoon();
    return { ...r, started: false };
  }

  private claimSoon(): void {
    this.claimMore().catch((err: Error) => this.log.error(`job runner round failed: ${err.message}`));
  }

  /**
   * Cancels a job this runner is running at once, without waiting for the next lease renewal
   * to tell it, and resolves once it has settled; null when the job does not run here.
   */
  cancelHere(id: string): Promise<void> | null {
    const r = this.running.get(id);
    if (!r) return null;
    if (!r.controller.signal.aborted) r.controller.abort(new JobStopped('cancelled'));
    return r.done;
  }

  /** Resolves once the job has settled here (at once when it does not run here): then it records nothing more. */
  settledJob(id: string): Promise<void> {
    return this.running.get(id)?.done ?? Promise.resolve();
  }

  /** Resolves once every job started so far has settled (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((r) => r.done));
  }

  /** Polls every `pollSeconds` on a timer that does not keep the process alive; a slow round is not overlapped. */
  start(pollSeconds = 2): void {
    this.stopping = false;
    this.loop.start(pollSeconds);
  }

  /**
   * A round now rather than at the next poll (a job was just enqueued); nothing when the runner
   * is not polling (tests drive `tick()` themselves) or a round is under way.
   */
  wake(): void {
    if (!this.loop.polling || this.stopping) return;
    void this.loop.runNow();
  }

  /**
   * Stops polling, aborts the running jobs (reason `shutdown`) and waits for them: a job its
   * handler stopped goes back to the queue as pending, for another runner to claim at once.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop.stop();
    for (const r of this.running.values()) if (!r.controller.signal.aborted) r.controller.abort(new JobStopped('shutdown'));
    let timer: NodeJS.Timeout | undefined;
    const gaveUp = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.opts.stopWaitMs ?? 10_000);
      timer.unref();
    });
    await Promise.race([this.settled(), gaveUp]);
    clearTimeout(timer);
    if (this.running.size > 0) this.log.warn(`stopped with ${this.running.size} job(s) still running: their leases will lapse`);
  }

  private startJob(job: QueuedJob): void {
    const handler = this.handlers.get(job.kind)!;
    const controller = new AbortController();
    const owner = this.opts.owner;
    const lost = () => {
      if (!controller.signal.aborted) controller.abort(new JobStopped('lease_lost'));
    };
    const ctx: JobContext = {
      signal: controller.signal,
      clock: this.clock,
      progress: async (progress) => {
        if (!(await this.queue.progress(job.id, owner, progress))) lost();
      },
      checkpoint: async (cursor, progress) => {
        if (!(await this.queue.progress(job.id, owner, progress === undefined ? job.progress : progress, cursor))) lost();
      },
    };
    const t0 = performance.now(); // monotonic: a duration, not a time
    const done = Promise.resolve()
      .then(() => handler.run(job, ctx))
      .then(
        (result) => this.settle(job, controller.signal, { result }),
        (err: Error) => this.settle(job, controller.signal, { error: err }),
      )
      .then((outcome) => {
        if (outcome) this.opts.onJobEnded?.({ kind: job.kind, outcome, seconds: (performance.now() - t0) / 1000 });
      })
      .catch((err: Error) => this.log.error(`recording the end of job ${job.id} failed: ${err.message}`))
      .finally(() => this.running.delete(job.id));
    this.running.set(job.id, { job, controller, done });
  }

  private async settle(job: QueuedJob, signal: AbortSignal, outcome: { result?: unknown; error?: Error }): Promise<JobOutcome | null> {
    const owner = this.opts.owner;
    const why = signal.aborted && signal.reason instanceof JobStopped ? signal.reason.why : null;
    if (why === 'lease_lost') return null; // the job belongs to another runner now
    if (why === 'cancelled') {
      await this.queue.acknowledgeCancel(job.id, owner);
      return 'cancelled';
    } else if (!outcome.error) {
      await this.queue.complete(job.id, owner, outcome.result ?? null);
      return 'completed';
    } else if (why === 'shutdown') {
      await this.queue.release(job.id, owner);
      return 'released';
    } else {
      await this.queue.fail(job.id, owner, outcome.error.message || String(outcome.error));
      return 'failed';
    }
  }
}
