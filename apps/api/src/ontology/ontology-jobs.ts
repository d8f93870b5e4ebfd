import { Inject, Injectable } from '@nestjs/common';
import { JobKind } from '@strata/domain/jobs';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { JobRegistry } from '@strata/jobs/job-registry';
import { JOB_QUEUE, JobQueue, QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobRunner } from '@strata/jobs/runner/job-runner';
import { OntologyStore } from '@strata/ontology/ontology-store';

/** What every ontology job's input carries: the title `GET /jobs` shows (REFERENCE §9.4). */
export interface OntologyJobInput {
  title: string;
}

/**
 * The one way the ontology's model-backed routes run as jobs (propose-schema, extract): a job
 * of its §9.4 kind on the durable runner, which is the record `GET /jobs` shows (its title in
 * the input, its counters in the progress). Claimed with a lease, it is taken up again after a
 * stop or a crash (from its checkpoint); a cancel stops it at once on this replica.
 */
@Injectable()
export class OntologyJobs {
  constructor(
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(ID_GENERATOR) private readonly ids: IdGenerator,
    private readonly runner: JobRunner,
    private readonly registry: JobRegistry,
    private readonly store: OntologyStore,
  ) {}

  /** Registers a kind's handler on the runner, and the kind with the registry (`POST /jobs/{id}/cancel`, `POST /clear`). */
  register<I extends OntologyJobInput>(kind: JobKind, run: (job: QueuedJob, input: I, ctx: JobContext) => Promise<unknown>): void {
    this.registry.onDurableKind(kind, { stopsAtOnce: true });
    this.runner.register(kind, {
      run: async (job, ctx) => {
        // servers mode: another replica may have queued it; this one's read model must show what it wrote
        await this.store.catchUp();
        return run(job, job.input as I, ctx);
      },
    });
  }

  /** The id of a job about to be queued, for records that name it before it exists (a schema's `propose_job_id`). */
  newJobId(): string {
    return this.ids.uuid();
  }

  async enqueue(id: string, kind: JobKind, org: string, input: OntologyJobInput, progress?: Record<string, number>): Promise<void> {
    await this.queue.enqueue({ id, kind, org, input, progress });
    this.runner.wake();
  }
}
