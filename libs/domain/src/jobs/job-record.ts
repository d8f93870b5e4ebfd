import { Errors } from '../errors';
import { Body, readEnum, readPage, readUid } from '../validation';

export const JOB_KINDS = ['ingest_document', 'ingest_session', 'ingest_resume', 'embed_all', 'synthesis', 'ontology_propose', 'ontology_extract', 'brief_regenerate'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_STATUSES = ['pending', 'processing', 'completed', 'failed', 'cancelled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The job record of REFERENCE §9.4, with node counts for embedding jobs. */
export interface JobRecord {
  id: string;
  kind: JobKind;
  title: string;
  status: JobStatus;
  document_uid: string | null;
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
  /** 1-based, only while pending */
  queue_position?: number;
}

export function isActive(job: Pick<JobRecord, 'status'>): boolean {
  return job.status === 'pending' || job.status === 'processing';
}

/**
 * Cancelling is possible from pending or processing only (REFERENCE §9.4). `allowed` lists
 * the actions still valid from the job's state (§1.10, as for skills): none once finished.
 */
export function assertCancellable(job: JobRecord): void {
  if (!isActive(job)) throw Errors.invalidTransition(`job ${job.id} is already ${job.status}`, job.status, []);
}

export interface JobListQuery {
  status?: JobStatus;
  kind?: JobKind;
  document_uid?: string;
  limit: number;
  offset: number;
}

/** `GET /jobs?status=&kind=&document_uid=&limit=&offset=` (defaults and maximum: REFERENCE §1.9). */
export function readJobListQuery(q: Body): JobListQuery {
  return {
    status: readEnum(q, 'status', JOB_STATUSES),
    kind: readEnum(q, 'kind', JOB_KINDS),
    document_uid: readUid(q, 'document_uid'),
    ...readPage(q, { limit: 50, max: 1000 }),
  };
}

/** Newest first, ties by id; the page as REFERENCE §1.9 shapes it. */
export function pageOfJobs(jobs: Iterable<JobRecord>, q: JobListQuery): { items: JobRecord[]; has_more: boolean; limit: number; offset: number } {
  const matching = [...jobs]
    .filter((j) => (q.status === undefined || j.status === q.status) && (q.kind === undefined || j.kind === q.kind) && (q.document_uid === undefined || j.document_uid === q.document_uid))
    .sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const items = matching.slice(q.offset, q.offset + q.limit);
  return { items, has_more: matching.length > q.offset + items.length, limit: q.limit, offset: q.offset };
}
