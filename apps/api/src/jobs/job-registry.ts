import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { JobKind, JobListQuery, JobRecord, assertCancellable, isActive, pageOfJobs } from '@strata/domain/jobs';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';

export type { JobRecord } from '@strata/domain/jobs';

/** How long finished jobs are kept (REFERENCE §9.4: at least 7 days). */
const RETENTION_SECS = 8 * 86_400;

/**
 * In-process registry of background jobs (embed-all, re-embedding after a model change).
 * Jobs live as long as the process: they only derive data that the log can rebuild, and a
 * restart resumes what matters (the vector projection re-runs pending backfills). A job's
 * runner checks `cancelled` between steps and stops there.
 */
@Injectable()
export class JobRegistry {
  private readonly jobs = new Map<string, { org: string; job: JobRecord }>();

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  create(org: string, kind: JobKind, title: string, totalNodes: number): JobRecord {
    this.prune();
    const now = this.clock.now();
    const job: JobRecord = {
      id: this.ids.uuid(),
      kind,
      title,
      status: 'pending',
      document_uid: null,
      progress: { total_chunks: 0, processed_chunks: 0, nodes_created: 0, edges_created: 0, total_nodes: totalNodes, processed_nodes: 0, embedded_nodes: 0, failed_nodes: 0 },
      result: null,
      error: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      completed_at: null,
    };
    this.jobs.set(job.id, { org, job });
    return job;
  }

  /** The job as the wire shows it (`queue_position` while pending). */
  get(org: string, id: string): JobRecord {
    return this.wire(org, this.find(org, id));
  }

  list(org: string, q: JobListQuery): { items: JobRecord[]; has_more: boolean; limit: number; offset: number } {
    const page = pageOfJobs(this.ofOrg(org), q);
    return { ...page, items: page.items.map((j) => this.wire(org, j)) };
  }

  /** The organization's active job of a kind, if any (one embedding job at a time). */
  active(org: string, kind: JobKind): JobRecord | null {
    for (const j of this.ofOrg(org)) if (j.kind === kind && isActive(j)) return j;
    return null;
  }

  update(job: JobRecord, change: Partial<Pick<JobRecord, 'status' | 'result' | 'error'>> & { progress?: Partial<JobRecord['progress']> }): void {
    // a cancelled job stays cancelled: its runner may still report the step it was in
    if (job.status === 'cancelled') return;
    const now = this.clock.now();
    if (change.status === 'processing' && job.started_at === null) job.started_at = now;
    if (change.status === 'completed' || change.status === 'failed' || change.status === 'cancelled') job.completed_at = now;
    if (change.status) job.status = change.status;
    if (change.result !== undefined) job.result = change.result;
    if (change.error !== undefined) job.error = change.error;
    if (change.progress) Object.assign(job.progress, change.progress);
    job.updated_at = now;
  }

  /** `POST /jobs/{id}/cancel`: 409 `invalid_transition` once the job has finished. */
  cancel(org: string, id: string): JobRecord {
    const job = this.find(org, id);
    assertCancellable(job);
    this.update(job, { status: 'cancelled' });
    return this.wire(org, job);
  }

  /** `POST /clear`: cancels the organization's active jobs, then forgets all its jobs. Returns how many were cancelled. */
  cancelAndForget(org: string): number {
    let cancelled = 0;
    for (const [id, j] of this.jobs) {
      if (j.org !== org) continue;
      if (isActive(j.job)) {
        this.update(j.job, { status: 'cancelled' });
        cancelled++;
      }
      this.jobs.delete(id);
    }
    return cancelled;
  }

  private find(org: string, id: string): JobRecord {
    const j = this.jobs.get(id);
    if (!j || j.org !== org) throw Errors.notFound(`job ${id} not found`, { id });
    return j.job;
  }

  private *ofOrg(org: string): Generator<JobRecord> {
    for (const j of this.jobs.values()) if (j.org === org) yield j.job;
  }

  private wire(org: string, job: JobRecord): JobRecord {
    if (job.status !== 'pending') return { ...job, progress: { ...job.progress } };
    let ahead = 0;
    for (const j of this.ofOrg(org)) if (j.status === 'pending' && (j.created_at < job.created_at || (j.created_at === job.created_at && j.id < job.id))) ahead++;
    return { ...job, progress: { ...job.progress }, queue_position: ahead + 1 };
  }

  private prune(): void {
    const cutoff = this.clock.now() - RETENTION_SECS;
    for (const [id, j] of this.jobs) if (j.job.completed_at !== null && j.job.completed_at < cutoff) this.jobs.delete(id);
  }
}
