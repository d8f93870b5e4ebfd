import { Inject, Injectable } from '@nestjs/common';
import { Errors } from '@strata/domain/errors';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';

export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed' | 'cancelled';

/** The job record of REFERENCE §9.4, with node counts for embedding jobs. */
export interface JobRecord {
  id: string;
  kind: string;
  title: string;
  status: JobStatus;
  document_uid: null;
  progress: {
    total_chunks: number;
    processed_chunks: number;
    nodes_created: number;
    edges_created: number;
    total_nodes: number;
    processed_nodes: number;
    embedded_nodes: number;
    failed_nodes: number;
  };
  result: Record<string, unknown> | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  started_at: number | null;
  completed_at: number | null;
}

/** How long finished jobs are kept (REFERENCE §9.4: at least 7 days). */
const RETENTION_SECS = 8 * 86_400;

/**
 * In-process registry of background embedding jobs (embed-all, re-embedding after a model
 * change). Jobs live as long as the process: they only derive data that the log can rebuild,
 * and a restart resumes what matters (the vector projection re-runs pending backfills).
 */
@Injectable()
export class JobRegistry {
  private readonly jobs = new Map<string, { org: string; job: JobRecord }>();

  constructor(
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
  ) {}

  create(org: string, kind: string, title: string, totalNodes: number): JobRecord {
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

  get(org: string, id: string): JobRecord {
    const j = this.jobs.get(id);
    if (!j || j.org !== org) throw Errors.notFound(`job ${id} not found`, { id });
    return j.job;
  }

  /** The organization's active job of a kind, if any (one embedding job at a time). */
  active(org: string, kind: string): JobRecord | null {
    for (const j of this.jobs.values())
      if (j.org === org && j.job.kind === kind && (j.job.status === 'pending' || j.job.status === 'processing')) return j.job;
    return null;
  }

  update(job: JobRecord, change: Partial<Pick<JobRecord, 'status' | 'result' | 'error'>> & { progress?: Partial<JobRecord['progress']> }): void {
    const now = this.clock.now();
    if (change.status === 'processing' && job.started_at === null) job.started_at = now;
    if (change.status === 'completed' || change.status === 'failed' || change.status === 'cancelled') job.completed_at = now;
    if (change.status) job.status = change.status;
    if (change.result !== undefined) job.result = change.result;
    if (change.error !== undefined) job.error = change.error;
    if (change.progress) Object.assign(job.progress, change.progress);
    job.updated_at = now;
  }

  private prune(): void {
    const cutoff = this.clock.now() - RETENTION_SECS;
    for (const [id, j] of this.jobs) if (j.job.completed_at !== null && j.job.completed_at < cutoff) this.jobs.delete(id);
  }
}
