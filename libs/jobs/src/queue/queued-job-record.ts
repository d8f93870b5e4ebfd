import { JOB_KINDS, JobKind, JobRecord } from '@strata/domain/jobs';
import { QueuedJob } from './job-queue.port';

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

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * A job of the durable queue as `GET /jobs` shows it (REFERENCE §9.4): `running` reads
 * `processing`; `title` and `document_uid` come from the job's input; its progress fills the
 * record's counters. Null for kinds that are not §9.4 job kinds (internal schedule jobs).
 */
export function jobRecordOfQueued(q: QueuedJob): JobRecord | null {
  if (!(JOB_KINDS as readonly string[]).includes(q.kind)) return null;
  const input = isObject(q.input) ? q.input : {};
  const progress = { ...EMPTY_PROGRESS };
  if (isObject(q.progress)) for (const k of Object.keys(EMPTY_PROGRESS) as (keyof JobRecord['progress'])[]) if (typeof q.progress[k] === 'number') progress[k] = q.progress[k] as number;
  return {
    id: q.id,
    kind: q.kind as JobKind,
    title: typeof input.title === 'string' ? input.title : q.kind,
    status: q.status === 'running' ? 'processing' : q.status,
    document_uid: typeof input.document_uid === 'string' ? input.document_uid : null,
    progress,
    result: isObject(q.result) ? q.result : null,
    error: q.error,
    created_at: q.created_at,
    updated_at: q.updated_at,
    started_at: q.started_at,
    completed_at: q.finished_at,
  };
}
