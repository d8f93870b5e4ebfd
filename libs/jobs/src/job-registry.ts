import { Logger } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { JobKind, JobListQuery, JobRecord, assertCancellable, pageOfJobs } from '@strata/domain/jobs';
import { Clock } from '@strata/domain/time';
import { JobStore } from './store/job-store.port';
import { JobQueue, QueuedJob } from './queue/job-queue.port';
import { jobRecordOfQueued } from './queue/queued-job-record';
import { JobRunner } from './runner/job-runner';

/** What a kind of job on the durable queue wants to hear from the registry. */
export interface DurableJobKind {
  /**
   * A cancel request finished the job while it was still pending: its handler never runs.
   * `payload` is what it was enqueued with (the cancel drops it from the queue), so the kind
   * can keep what a later resume needs; null when it had none or the caller discards its work.
   */
  cancelledBeforeStart?(job: QueuedJob, payload: string | null): Promise<void>;
  /**
   * A cancel stops a running job of this kind at once when it runs in this process, and the
   * answer waits for it to end `cancelled`: its steps may be dropped midway (an embedding
   * batch whose provider answer is not recorded). Other kinds finish the step in progress
   * (an ingestion chunk) and end at the runner's next look at the queue.
   */
  stopsAtOnce?: boolean;
}

export type { JobRecord } from '@strata/domain/jobs';

export interface JobRegistryOptions {
  /**
   * This process is the only one running jobs on its store (the embedded default: one
   * service per data dir), so jobs the store still has as pending or processing at start-up
   * were interrupted by a stop. In servers mode other replicas may be running them.
   */
  ownsAllJobs: boolean;
}

/** Whether the caller may see a job, from its record and what it was queued with (null for a stored record). */
export type JobVisibility = (j: JobRecord, input: unknown) => boolean;

/**
 * The §9.4 view of background jobs (`GET /jobs`, `GET /jobs/{id}`, `POST /jobs/{id}/cancel`,
 * `POST /clear`): every job runs on the durable runner, and its queued job is its record
 * (`jobRecordOfQueued`). The job store still holds the records earlier versions wrote beside
 * the queue: they are shown, cancelled in the store while active, and forgotten by retention
 * (`JobRetention`) or `POST /clear`.
 */
export class JobRegistry {
  private readonly log = new Logger('Jobs');
  private readonly durable = new Map<string, DurableJobKind>();
  /** store writes, in order (a job's later state never lands before an earlier one) */
  private writes: Promise<void> = Promise.resolve();

  constructor(
    private readonly clock: Clock,
    private readonly store: JobStore,
    private readonly opts: JobRegistryOptions,
    /** jobs on the durable runner (synthesis, ingestion…) are read, listed and cancelled here too */
    private readonly queue: JobQueue | null = null,
    /** this process's runner: a cancel stops a `stopsAtOnce` job it runs without waiting for its next round */
    private readonly runner: JobRunner | null = null,
  ) {}

  /**
   * Jobs of every §9.4 kind on the durable queue are shown beside the registry's own
   * (`GET /jobs`, `GET /jobs/{id}`, `POST /jobs/{id}/cancel`); a kind registered here also
   * hears of a cancel that finished it before it started, and `POST /clear` cancels it.
   */
  onDurableKind(kind: JobKind, view: DurableJobKind = {}): void {
    this.durable.set(kind, view);
  }

  /** The organization's active durable jobs of these kinds (pending or running), oldest first. */
  async activeDurable(org: string, kinds: readonly JobKind[]): Promise<QueuedJob[]> {
    if (!this.queue) return [];
    const out: QueuedJob[] = [];
    for (const kind of kinds) for (const j of await this.queue.list(org, { kind })) if (j.status === 'pending' || j.status === 'running') out.push(j);
    return out.sort((a, b) => a.created_at - b.created_at);
  }

  /**
   * Cancels a durable job: a pending one at once (its kind hears of it), a running one is
   * flagged and stops after the step in progress. 409 once finished. Returns the record.
   * `discard`: the caller removes what the job was for (its document, the whole graph), so
   * its kind is not handed the payload to keep anything for later.
   */
  async cancelDurable(org: string, job: QueuedJob, opts: { discard?: boolean } = {}): Promise<JobRecord> {
    assertCancellable(jobRecordOfQueued(job)!);
    const kind = this.durable.get(job.kind);
    // read before the cancel drops it; unused when the job starts meanwhile
    const payload = job.status === 'pending' && kind?.cancelledBeforeStart && !opts.discard ? await this.queue!.payload(job.id) : null;
    // pending: cancelled at once; running: its runner stops after the step in progress
    let after = (await this.queue!.requestCancel(org, job.id)) ?? job;
    if (job.status === 'pending' && after.status === 'cancelled') await kind?.cancelledBeforeStart?.(after, payload);
    else if (after.status === 'running' && kind?.stopsAtOnce) {
      const stopping = this.runner?.cancelHere(job.id);
      if (stopping) {
        await stopping;
        after = (await this.queue!.get(org, job.id)) ?? after;
      }
    }
    return jobRecordOfQueued(after)!;
  }

  /**
   * `POST /clear`: cancels the organization's active durable jobs of the registered kinds, then
   * forgets those that have ended (all of them, unless one still finishes its step on another
   * replica or ends after its step in progress: it is forgotten by retention). How many it cancelled.
   */
  async cancelDurableOf(org: string): Promise<number> {
    const kinds = [...this.durable.keys()] as JobKind[];
    let n = 0;
    for (const j of await this.activeDurable(org, kinds)) {
      await this.cancelDurable(org, j, { discard: true });
      n++;
    }
    await this.queue?.removeFinishedOf(org, kinds);
    return n;
  }

  /**
   * At start-up: records of the store an earlier version's stopped process left pending or
   * processing are failed (nothing runs them any more).
   */
  async recover(): Promise<void> {
    if (this.opts.ownsAllJobs) {
      const now = this.clock.now();
      for (const { org, job } of await this.store.active()) {
        const failed: JobRecord = { ...job, status: 'failed', error: 'interrupted: the service stopped before the job finished', updated_at: now, completed_at: now };
        await this.store.save(org, failed);
      }
    }
  }

  /** Waits for every store write made so far (shutdown, tests). */
  flush(): Promise<void> {
    return this.writes;
  }

  /**
   * The job as the wire shows it (`queue_position` while pending). `visible`: whether the caller
   * may see a job (a job it may not is absent, as an unknown one); every job when omitted.
   */
  async get(org: string, id: string, visible?: JobVisibility): Promise<JobRecord> {
    const { job } = await this.find(org, id, visible);
    return job.status === 'pending' ? this.wire(job, await this.ofOrg(org)) : this.wire(job, []);
  }

  async list(org: string, q: JobListQuery, visible?: JobVisibility): Promise<{ items: JobRecord[]; has_more: boolean; limit: number; offset: number }> {
    const inputs = new Map<string, unknown>();
    const all = await this.ofOrg(org, inputs);
    // queue positions count every job of the organization; the page only those the caller may see
    const page = pageOfJobs(visible ? all.filter((j) => visible(j, inputs.get(j.id) ?? null)) : all, q);
    return { ...page, items: page.items.map((j) => this.wire(j, all)) };
  }

  /**
   * `POST /jobs/{id}/cancel`: 409 `invalid_transition` once the job has finished. A job of
   * the queue is cancelled there (`cancelDurable`); a stored record only in the store.
   */
  async cancel(org: string, id: string, visible?: JobVisibility): Promise<JobRecord> {
    const { job: stored, queued } = await this.find(org, id, visible);
    if (queued) return this.wire(await this.cancelDurable(org, queued), []);
    assertCancellable(stored);
    const now = this.clock.now();
    const cancelled: JobRecord = { ...stored, status: 'cancelled', updated_at: now, completed_at: now };
    this.persist(org, cancelled);
    await this.writes;
    return this.wire(cancelled, []);
  }

  /** `POST /clear`: forgets the organization's stored records (its queued jobs: `cancelDurableOf`). */
  forgetStored(org: string): void {
    this.enqueue(() => this.store.removeOrg(org), `forgetting the jobs of ${org}`);
  }

  private async durableJob(org: string, id: string): Promise<QueuedJob | null> {
    if (!this.queue) return null;
    const j = await this.queue.get(org, id);
    return j && jobRecordOfQueued(j) ? j : null;
  }

  /** The job, from the queue (`queued`) or else the store; absent when `visible` refuses it. */
  private async find(org: string, id: string, visible?: JobVisibility): Promise<{ job: JobRecord; queued: QueuedJob | null }> {
    const queued = await this.durableJob(org, id);
    const job = queued ? jobRecordOfQueued(queued)! : await this.store.get(org, id);
    if (!job || (visible && !visible(job, queued?.input ?? null))) throw Errors.notFound(`job ${id} not found`, { id });
    return { job, queued };
  }

  /** The organization's jobs: the stored records and the queue's (`inputs`: each queued job's input by id). */
  private async ofOrg(org: string, inputs?: Map<string, unknown>): Promise<JobRecord[]> {
    await this.writes; // the store then holds everything this process wrote
    const out = new Map<string, JobRecord>();
    for (const j of await this.store.ofOrg(org)) out.set(j.id, j);
    for (const q of (await this.queue?.list(org)) ?? []) {
      const r = jobRecordOfQueued(q);
      if (r) {
        out.set(r.id, r);
        inputs?.set(r.id, q.input);
      }
    }
    return [...out.values()];
  }

  private wire(job: JobRecord, orgJobs: readonly JobRecord[]): JobRecord {
    const { queue_position: _stored, ...rest } = job;
    if (job.status !== 'pending') return { ...rest, progress: { ...job.progress } };
    let ahead = 0;
    for (const j of orgJobs) if (j.status === 'pending' && (j.created_at < job.created_at || (j.created_at === job.created_at && j.id < job.id))) ahead++;
    return { ...rest, progress: { ...job.progress }, queue_position: ahead + 1 };
  }

  private persist(org: string, job: JobRecord): void {
    const snapshot: JobRecord = { ...job, progress: { ...job.progress } };
    this.enqueue(() => this.store.save(org, snapshot), `saving job ${job.id}`);
  }

  private enqueue(write: () => Promise<void>, what: string): void {
    this.writes = this.writes.then(write).catch((err: Error) => this.log.error(`${what} failed: ${err.message}`));
  }
}
