import { Inject, Injectable } from '@nestjs/common';
import { JobKind, JobRecord } from '@strata/domain/jobs';
import { JobRegistry } from '@strata/jobs/job-registry';
import { JOB_QUEUE, JobQueue, QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobRunner } from '@strata/jobs/runner/job-runner';
import { OntologyStore } from '@strata/ontology/ontology-store';

/** What every ontology job's input carries: the §9.4 record it reports on. */
export interface OntologyJobInput {
  record_id: string;
}

/**
 * The one way the ontology's model-backed routes run as jobs (propose-schema, extract): a §9.4
 * record in the registry (what `GET /jobs` shows), the job on the durable runner, started at
 * once, and the record moved through processing → completed / failed around the handler.
 */
@Injectable()
export class OntologyJobs {
  /** the records of the jobs this process started (the registry writes them through to the job store) */
  private readonly records = new Map<string, JobRecord>();

  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    private readonly runner: JobRunner,
    private readonly registry: JobRegistry,
    private readonly store: OntologyStore,
  ) {}

  /** Registers a kind's handler; it gets the job's record (when this process made it) to report progress on. */
  register<I extends OntologyJobInput>(kind: string, run: (job: QueuedJob, input: I, ctx: JobContext, record: JobRecord | null) => Promise<unknown>): void {
    this.runner.register(kind, {
      run: async (job, ctx) => {
        const input = job.input as I;
        const record = this.records.get(input.record_id) ?? null;
        if (record?.status === 'cancelled') return { cancelled: true };
        if (record) this.registry.update(record, { status: 'processing' });
        try {
          // servers mode: another replica may have queued it; this one's read model must show what it wrote
          await this.store.catchUp();
          const result = await run(job, input, ctx, record);
          if (record) this.registry.update(record, { status: 'completed', result: result as JobRecord['result'] });
          return result;
        } catch (err) {
          if (record) this.registry.update(record, { status: 'failed', error: (err as Error).message });
          throw err;
        }
      },
    });
  }

  /** A record for a job about to be queued (its id is the job id the route answers). */
  record(org: string, kind: JobKind, title: string): JobRecord {
    const record = this.registry.create(org, kind, title, 0);
    this.records.set(record.id, record);
    return record;
  }

  isCancelled(recordId: string): boolean {
    return this.records.get(recordId)?.status === 'cancelled';
  }

  progress(record: JobRecord | null, progress: Partial<JobRecord['progress']>): void {
    if (record) this.registry.update(record, { progress });
  }

  async enqueue(kind: string, org: string, input: OntologyJobInput): Promise<void> {
    await this.queue.enqueue({ kind, org, input });
    this.runner.wake();
  }
}
