import { JobRecord, JobStatus } from '@strata/domain/jobs';

export const JOBS_COLLECTION = 'jobs';

/** A job record in MongoDB: the record itself, keyed by its id, with its organization. */
export interface JobDocument extends Omit<JobRecord, 'id' | 'queue_position'> {
  _id: string;
  org: string;
}

export function jobDocument(org: string, job: JobRecord): JobDocument {
  // queue_position is computed on read, never stored
  const { id, queue_position: _position, ...rest } = job;
  return { _id: id, org, ...rest, progress: { ...job.progress } };
}

export function jobFromDocument(doc: JobDocument): JobRecord {
  const { _id, org: _org, ...rest } = doc;
  return { id: _id, ...rest, progress: { ...doc.progress } };
}

/** Filters of the store's queries (one place, unit-tested). */
export const jobFilters = {
  byId: (org: string, id: string) => ({ _id: id, org }),
  ofOrg: (org: string) => ({ org }),
  active: () => ({ status: { $in: ['pending', 'processing'] as JobStatus[] } }),
  finishedBefore: (cutoff: number) => ({ completed_at: { $ne: null, $lt: cutoff } }),
};
