import type { Collection, Db } from 'mongodb';
import { JobRecord } from '@strata/domain/jobs';
import { JobStore, StoredJob } from './job-store.port';
import { JOBS_COLLECTION, JobDocument, jobDocument, jobFilters, jobFromDocument } from './mongo-job-documents';

/** Servers mode: job records in MongoDB, shared by every API replica (documents: mongo-job-documents.ts). */
export class MongoJobStore implements JobStore {
  private readonly jobs: Collection<JobDocument>;
  private indexed: Promise<unknown> | null = null;

  constructor(db: Db) {
    this.jobs = db.collection<JobDocument>(JOBS_COLLECTION);
  }

  private ensureIndexes(): Promise<unknown> {
    this.indexed ??= this.jobs.createIndexes([{ key: { org: 1 } }, { key: { status: 1 } }, { key: { completed_at: 1 } }]);
    return this.indexed;
  }

  async save(org: string, job: JobRecord): Promise<void> {
    await this.ensureIndexes();
    const doc = jobDocument(org, job);
    await this.jobs.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }

  async get(org: string, id: string): Promise<JobRecord | null> {
    const d = await this.jobs.findOne(jobFilters.byId(org, id));
    return d ? jobFromDocument(d) : null;
  }

  async ofOrg(org: string): Promise<JobRecord[]> {
    return (await this.jobs.find(jobFilters.ofOrg(org)).toArray()).map(jobFromDocument);
  }

  async active(): Promise<StoredJob[]> {
    return (await this.jobs.find(jobFilters.active()).toArray()).map((d) => ({ org: d.org, job: jobFromDocument(d) }));
  }

  async removeOrg(org: string): Promise<void> {
    await this.jobs.deleteMany(jobFilters.ofOrg(org));
  }

  async removeFinishedBefore(cutoff: number): Promise<void> {
    await this.jobs.deleteMany(jobFilters.finishedBefore(cutoff));
  }

  /** the MongoDB client belongs to the server storage, which closes it */
  async close(): Promise<void> {}
}
