import { JobKind, JobRecord, JobStatus } from '@strata/domain/jobs';
import { QueuedJob } from './queue/job-queue.port';

/** What a job handler on the durable queue keeps in its input for the job record. */
export interface DurableJobInput {
  title?: string;
  document_uid?: string | null;
}

const STATUS: Record<QueuedJob['status'], JobStatus> = {
  pending: 'pending',
  running: 'processing',
  completed: 'completed',
  failed: 'failed',
  cancelled: 'cancelled',
};

const EMPTY_PROGRESS: JobRecord['progress'] = {
  total_chunks: 0,
  processed_chunks: 0,
  nodes_created: 0,
  edges_created: 0,
  total_nodes: 0,
  processed_nodes: 0,
  embedded_nodes: 0,
  failed_nodes: 0,
};

/**
 * The REFERENCE §9.4 job record of a job on the durable queue: its title and document from
 * the input, its progress as the handler last reported it, `running` shown as `processing`.
 */
export function durableJobRecord(job: QueuedJob): JobRecord {
  const input = (job.input ?? {}) as DurableJobInput;
  const progress = job.progress && typeof job.progress === 'object' ? (job.progress as Partial<JobRecord['progress']>) : {};
  return {
    id: job.id,
    kind: job.kind as JobKind,
    title: input.title ?? job.kind,
    status: STATUS[job.status],
    document_uid: input.document_uid ?? null,
    progress: { ...EMPTY_PROGRESS, ...progress },
    result: job.result && typeof job.result === 'object' ? (job.result as Record<string, unknown>) : null,
    error: job.error,
    created_at: job.created_at,
    updated_at: job.updated_at,
    started_at: job.started_at,
    completed_at: job.finished_at,
  };
}
