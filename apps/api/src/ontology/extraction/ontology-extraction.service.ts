import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { AuthContext } from '@strata/auth/auth-context';
import { Errors } from '@strata/domain/errors';
import { Principal } from '@strata/domain/events';
import type { JobKind } from '@strata/domain/jobs';
import { ExtractionMode } from '@strata/domain/ontology';
import { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext } from '@strata/jobs/runner/job-runner';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { EntityFinder, EntityFinding } from '@strata/ontology/entity-finder';
import { ExtractionStager } from '@strata/ontology/extraction-stager';
import { OntologyStore } from '@strata/ontology/ontology-store';
import { OntologyScope } from '../ontology-scope';
import { ExtractRequest } from './extract.dto';
import { OntologyJobs } from '../ontology-jobs';
import { SOURCE_TYPES, sourceTexts } from './source-texts';

export const EXTRACT_KIND = 'ontology_extract' satisfies JobKind;

interface ExtractInput {
  title: string;
  schema_id: string;
  source_uids: string[];
  mode: ExtractionMode;
  principal: Principal;
  credential_id: string | null;
  agent_id: string | null;
}

/**
 * `POST /ontology/extract` as a job on the durable runner (kind `ontology_extract`): each
 * source's text is read for mentions of existing objects (linked with ExtractedFrom) and for
 * named entities an object type asks for (proposed, and applied as the mode and the type's
 * review policy say). Each source commits as its own unit, like ingestion's chunks. The
 * entities come from the offline library or, under a vendor provider, from the model.
 */
@Injectable()
export class OntologyExtraction implements OnModuleInit {
  constructor(
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly jobs: OntologyJobs,
    private readonly entities: EntityFinder,
    private readonly store: OntologyStore,
    private readonly scope: OntologyScope,
    private readonly stager: ExtractionStager,
  ) {}

  onModuleInit(): void {
    this.jobs.register<ExtractInput>(EXTRACT_KIND, (job, input, ctx) => this.run(job, input, ctx));
  }

  async start(auth: AuthContext, req: ExtractRequest): Promise<{ job_id: string }> {
    this.entities.assertAvailable();
    const schema = this.store.activeSchema(auth.org_id, req.schema_id);
    const scope = await this.scope.of(auth);
    for (const [i, uid] of req.source_uids.entries()) {
      const n = !scope || scope.allows(uid) ? await this.graph.getNode(auth.org_id, uid) : null;
      if (!n || n.tombstone_at !== null) throw Errors.refNotFound(`source_uids[${i}]`, uid);
      if (!(SOURCE_TYPES as readonly string[]).includes(n.node_type)) throw Errors.wrongNodeType(`source_uids[${i}]`, uid, n.node_type, SOURCE_TYPES);
    }
    const jobId = this.jobs.newJobId();
    const input: ExtractInput = {
      title: `ontology extraction into ${schema.name}`,
      schema_id: schema.id,
      source_uids: req.source_uids,
      mode: req.mode,
      principal: auth.principal,
      credential_id: auth.api_key_id,
      agent_id: auth.bound_agent_id,
    };
    await this.jobs.enqueue(jobId, EXTRACT_KIND, auth.org_id, input, { total_chunks: input.source_uids.length, processed_chunks: 0 });
    return { job_id: jobId };
  }

  private async run(job: QueuedJob, input: ExtractInput, ctx: JobContext): Promise<unknown> {
    const finding = this.entities.forJob(job.org, job.id);
    const totals = { proposals_created: 0, auto_applied: 0, objects_linked: 0 };
    const start = (job.checkpoint as { next?: number; totals?: typeof totals } | null) ?? {};
    Object.assign(totals, start.totals ?? {});
    for (let i = start.next ?? 0; i < input.source_uids.length; i++) {
      if (ctx.signal.aborted) break;
      const source = await this.graph.getNode(job.org, input.source_uids[i]);
      if (source && source.tombstone_at === null) {
        for (const part of await sourceTexts(this.graph, job.org, source)) {
          const r = await this.extractOne(job, input, part, finding, ctx.signal);
          totals.proposals_created += r.proposals_created;
          totals.auto_applied += r.auto_applied;
          totals.objects_linked += r.objects_linked;
        }
      }
      // the cursor carries the totals a job taken up again goes on from; the progress is the §9.4 counters
      await ctx.checkpoint({ next: i + 1, totals }, { total_chunks: input.source_uids.length, processed_chunks: i + 1 });
    }
    return totals;
  }

  /** One source text, as one unit of work: links, proposals, and what the policies apply. */
  private async extractOne(job: QueuedJob, input: ExtractInput, part: { uid: string; text: string }, finding: EntityFinding, signal: AbortSignal) {
    const ctx = { org: job.org, principal: input.principal, credential_id: input.credential_id, agent_id: input.agent_id, request_id: `job:${job.id}` };
    // the model is asked before the unit of work, never inside it
    const entities = await finding.find(part.text, signal);
    const out = { proposals_created: 0, auto_applied: 0, objects_linked: 0 };
    await this.uow.run(ctx, async (tx) => {
      const source = await tx.node(part.uid);
      if (!source || source.tombstone_at !== null) return;
      const staged = await this.stager.stage(tx, {
        schema_id: input.schema_id,
        mode: input.mode,
        source,
        text: part.text,
        entities,
        method: finding.method,
        confidence: finding.confidence,
        job_id: job.id,
        agent_id: input.agent_id,
        rationale: `named entity in ${source.label}`,
      });
      Object.assign(out, { proposals_created: staged.proposals_created, auto_applied: staged.auto_applied, objects_linked: staged.objects_linked });
    });
    return out;
  }
}
