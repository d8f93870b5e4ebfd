import { JobRecord } from '@strata/domain/jobs';

/** A job with the organization it belongs to, as a job store keeps it. */
export interface StoredJob {
  org: string;
  job: JobRecord;
}

/**
 * Where job records are kept between restarts (REFERENCE §9.4: finished jobs stay at least 7
 * days): operational data, not events (progress changes too often for the log, and nothing
 * is derived from it). Embedded: `ops.db` in the data dir. Servers: MongoDB, shared by every
 * API replica, so a job started on one can be polled on another.
 */
export interface JobStore {
  /** inserts or replaces the job's record */
  save(org: string, job: JobRecord): Promise<void>;
  /** the record, or null */
  get(org: string, id: string): Promise<JobRecord | null>;
  /** every record of the organization (a few per day at most: filtering happens in memory) */
  ofOrg(org: string): Promise<JobRecord[]>;
  /** records left `pending` or `processing` (by a process that stopped, on the embedded default) */
  active(): Promise<StoredJob[]>;
  /** forgets the organization's records (`POST /clear`) */
  removeOrg(org: string): Promise<void>;
  /** forgets records finished before `cutoff` (Unix seconds) */
  removeFinishedBefore(cutoff: number): Promise<void>;
  close(): Promise<void>;
}

export const JOB_STORE = Symbol('JOB_STORE');
