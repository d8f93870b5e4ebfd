import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNTS_UNIT_OF_WORK } from '@strata/accounts/accounts-unit-of-work';
import { MeteredLanguageModels, StructuredOutputError, structuredCall } from '@strata/ai';
import {
  BRIEF_OUTPUT_SCHEMA,
  BRIEF_SYSTEM_PROMPT,
  BriefStreams,
  BriefTrigger,
  ModelBrief,
  acceptModelBrief,
  modelMaterial,
  sourceFingerprint,
  structuralCandidates,
} from '@strata/domain/briefs';
import { DomainError } from '@strata/domain/errors';
import { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { JobContext, JobHandler } from '@strata/jobs/runner/job-runner';
import { SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { BriefWriter } from '../brief/brief-writer';
import { ProjectSourcesService } from '../sources/project-sources.service';

export const BRIEF_REGENERATE_JOB_KIND = 'brief_regenerate';

/** What `POST …/brief/regenerate` (mode llm) and an llm schedule queue. */
export interface BriefJobInput {
  project_uid: string;
  title: string;
  requested_by: string;
  force: boolean;
  trigger: BriefTrigger;
}

export interface BriefJobResult {
  project_uid: string;
  version: number;
  reused: boolean;
  dropped_items: number;
}

/**
 * The `brief_regenerate` job (REFERENCE §12.4, LLM): the model reads P's structural candidates
 * with their quotes and writes the brief; only items whose basis is admitted and whose quotes
 * anchor byte for byte are kept. A provider failure fails the job, records `last_error`
 * (`BriefRegenerationFailed`) and appends no version: no fallback to structural.
 */
@Injectable()
export class BriefRegenerateJobHandler implements JobHandler {
  constructor(
    private readonly sources: ProjectSourcesService,
    private readonly writer: BriefWriter,
    private readonly models: MeteredLanguageModels,
    @Inject(ACCOUNTS_UNIT_OF_WORK) private readonly uow: UnitOfWork,
  ) {}

  run(job: QueuedJob, ctx: JobContext): Promise<BriefJobResult> {
    return this.regenerate(job.org, job.input as BriefJobInput, job.id, ctx.signal);
  }

  /** One model-backed regeneration (this job's, or a briefing run's); `jobId` names it in `last_error`. */
  async regenerate(org: string, input: BriefJobInput, jobId: string, signal: AbortSignal): Promise<BriefJobResult> {
    const job = { id: jobId };
    const ctx = { signal };
    const context = { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: `job:${job.id}` };
    try {
      const chat = this.models.forOrganization(org, { requestId: `job:${job.id}` });
      if (!chat) throw new DomainError(501, 'llm_not_configured', 'the brief job needs a language model');
      const s = await this.sources.load(org, input.project_uid);
      const fingerprint = sourceFingerprint(s);
      const reused = this.writer.reusable(org, input.project_uid, fingerprint, 'llm', chat.model, input.force);
      if (reused) return { project_uid: input.project_uid, version: reused.version, reused: true, dropped_items: 0 };
      const structural = structuralCandidates(s);
      const { value } = await structuredCall<ModelBrief>(chat, {
        system: BRIEF_SYSTEM_PROMPT,
        messages: [{ role: 'user', content: modelMaterial(structural) }],
        output: { name: 'brief', schema: BRIEF_OUTPUT_SCHEMA as unknown as Record<string, unknown> },
        signal: ctx.signal,
      });
      ctx.signal.throwIfAborted();
      const accepted = acceptModelBrief(s, value);
      const r = await this.writer.write(
        context,
        input.project_uid,
        { sources: s, fingerprint, generated_by: 'llm', model: chat.model, summary: accepted.summary, generated: accepted.items },
        { trigger: input.trigger, requested_by: input.requested_by, force: input.force },
      );
      return { project_uid: input.project_uid, version: r.version.version, reused: r.reused, dropped_items: accepted.dropped };
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      const code = err instanceof StructuredOutputError ? 'upstream_error' : err instanceof DomainError ? err.code : 'upstream_error';
      const message = err instanceof Error ? err.message : String(err);
      await this.uow.run(context, async (tx) => {
        tx.emit(BriefStreams.brief(org, input.project_uid), 'BriefRegenerationFailed', { org_id: org, project_uid: input.project_uid, job_id: job.id, code, message, at: tx.now });
      });
      throw err;
    }
  }
}
