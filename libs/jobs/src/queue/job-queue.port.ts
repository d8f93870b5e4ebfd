/** A job's lifecycle in the durable queue. `running` jobs hold a lease; the others do not. */
export type QueuedJobStatus = 'pending' | 'running' | 'completed' | 'failed' | 'cancelled';

export const FINISHED_STATUSES: readonly QueuedJobStatus[] = ['completed', 'failed', 'cancelled'];

/**
 * A job in the durable queue. `input`, `progress`, `checkpoint` and `result` are opaque JSON
 * owned by the job's handler; `checkpoint` is the cursor a handler resumes from when the job
 * is claimed again after its runner died. Times are Unix seconds from the injected clock.
 */
export interface QueuedJob {
  id: string;
  org: string;
  kind: string;
  status: QueuedJobStatus;
  input: unknown;
  dedupe_key: string | null;
  /** jobs of one organization sharing a serial group run one at a time, oldest first */
  serial_group: string | null;
  /** how many times the job was claimed (2 or more: it was picked up again after a crash) */
  attempts: number;
  /** the runner that holds the lease while `running` */
  owner: string | null;
  lease_until: number | null;
  cancel_requested: boolean;
  progress: unknown;
  checkpoint: unknown;
  result: unknown;
  error: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  finished_at: number | null;
}

export interface EnqueueRequest {
  /** the job's id when the caller must name it before the job exists (a record that points at it); default: a new one */
  id?: string;
  kind: string;
  org: string;
  input: unknown;
  /**
   * While a job of this organization and kind with this key is pending or running, enqueueing
   * another gives that job back instead of a second one (a schedule slot, "embed everything").
   */
  dedupeKey?: string;
  /**
   * Jobs of the organization in the same serial group run one at a time, in the order they
   * were enqueued (ingestion: one job per organization); other organizations are not held up.
   */
  serialGroup?: string;
  /**
   * Large data the handler reads once, by `payload(id)` (an ingestion job's document text):
   * kept beside the job, never loaded with it, so reading or listing jobs does not parse it.
   */
  payload?: string;
  /** what the job shows as its progress until its handler reports some (the totals known when it is asked for) */
  progress?: unknown;
}

/** Active jobs of one kind and status, across organizations (what /metrics shows of the queue). */
export interface QueueActivity {
  kind: string;
  status: 'pending' | 'running';
  count: number;
  /** created_at of the oldest such job (Unix seconds) */
  oldest_created_at: number;
}

/** What a lease renewal found: still ours, ours but cancel was asked, or lost to another runner. */
export type LeaseState = 'held' | 'cancel_requested' | 'lost';

/**
 * The durable job queue: jobs are claimed with a lease so that a job whose runner died is
 * claimed again once the lease expires (and resumes from its checkpoint). Every write by a
 * runner names its owner and only applies while that owner holds the job, so a runner that
 * lost its lease cannot overwrite the work of the one that took over. Embedded: `ops.db`;
 * servers: MongoDB, shared by every replica.
 */
export interface JobQueue {
  /** a new pending job, or the active one with the same dedupe key (`created: false`) */
  enqueue(req: EnqueueRequest): Promise<{ job: QueuedJob; created: boolean }>;
  /**
   * Atomically takes the oldest runnable job of these kinds (pending, or running with an
   * expired lease) for `owner` until now + leaseSeconds; null when there is none. A job in a
   * serial group is runnable only while no older job of its group is pending or running.
   */
  claim(kinds: readonly string[], owner: string, leaseSeconds: number): Promise<QueuedJob | null>;
  /**
   * `enqueue`, and in the same atomic write the new job claimed for `owner` (as `claim` would:
   * running, attempt 1, leased until now + leaseSeconds) when its serial group has no other
   * pending or running job; otherwise it stays pending for `claim`. An active job with the same
   * dedupe key is returned as by `enqueue`, unclaimed. Optional: a queue without it is
   * enqueued, then claimed.
   */
  enqueueClaimed?(req: EnqueueRequest, owner: string, leaseSeconds: number): Promise<{ job: QueuedJob; created: boolean; claimed: boolean }>;
  /** extends the lease of a job `owner` holds */
  renew(id: string, owner: string, leaseSeconds: number): Promise<LeaseState>;
  /** records progress, and the checkpoint when given; false when `owner` no longer holds the job */
  progress(id: string, owner: string, progress: unknown, checkpoint?: unknown): Promise<boolean>;
  /** finishes a job `owner` holds; false when it no longer does */
  complete(id: string, owner: string, result: unknown): Promise<boolean>;
  fail(id: string, owner: string, error: string): Promise<boolean>;
  /** the runner stopped the job because cancel was requested */
  acknowledgeCancel(id: string, owner: string): Promise<boolean>;
  /** gives a held job back to the queue untouched (a runner shutting down cleanly) */
  release(id: string, owner: string): Promise<boolean>;
  /**
   * Cancel: a pending job is cancelled at once, a running one is flagged for its runner
   * (which sees it at its next renewal). A finished job is returned unchanged (the caller
   * decides whether that is an error); null when the organization has no such job.
   */
  requestCancel(org: string, id: string): Promise<QueuedJob | null>;
  get(org: string, id: string): Promise<QueuedJob | null>;
  /** the payload the job was enqueued with; null without one, or once the job finished */
  payload(id: string): Promise<string | null>;
  /** the organization's jobs, oldest first */
  list(org: string, filter?: { kind?: string; status?: QueuedJobStatus }): Promise<QueuedJob[]>;
  /** pending and running jobs counted by kind and status, every organization together */
  activity(): Promise<QueueActivity[]>;
  /** forgets jobs finished before `cutoff`; how many */
  removeFinishedBefore(cutoff: number): Promise<number>;
  /** forgets the organization's finished jobs of these kinds (`POST /clear`), never active ones; how many */
  removeFinishedOf(org: string, kinds: readonly string[]): Promise<number>;
  close(): Promise<void>;
}

export const JOB_QUEUE = Symbol('JOB_QUEUE');
