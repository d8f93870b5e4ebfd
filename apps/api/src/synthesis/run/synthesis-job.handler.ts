import { Inject, Injectable } from '@nestjs/common';
import { MeteredLanguageModels } from '@strata/ai';
import { DEFAULT_TARGET_TYPES, articleMaterial, claimGroups, pickGroups } from '@strata/domain/synthesis';
import { JobContext, JobHandler } from '@strata/jobs/runner/job-runner';
import { QueuedJob } from '@strata/jobs/queue/job-queue.port';
import { Principal } from '@strata/domain/events';
import type { AccessPrincipal } from '@strata/domain/governance';
import type { RequestOrigin } from '@strata/platform/policy/http-request';
import { CommandContext, SYSTEM_PRINCIPAL } from '@strata/platform/unit-of-work/command-context';
import { createEdge, createNode } from '@strata/platform/unit-of-work/graph-ops';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { ProjectCorpusService } from '../signals/project-corpus.service';
import { ArticleWriter, WrittenArticle } from './article-writer';

export const SYNTHESIS_JOB_KIND = 'synthesis';

/** What `POST /synthesis/run/{project_uid}` queues. */
export interface SynthesisJobInput {
  project_uid: string;
  title: string;
  /** principal id of the caller, recorded on each Article's PartOfProject edge */
  requested_by: string;
  /**
   * Who asked: the job writes as the caller, under the Space rule and the policies that judged
   * its request (REFERENCE §13.1, §13.6). Absent on jobs queued before it existed: written as `system`.
   */
  actor?: {
    principal: Principal;
    credential_id: string | null;
    agent_id: string | null;
    access?: AccessPrincipal;
    origin?: RequestOrigin;
  };
}

function jobContext(org: string, jobId: string, input: SynthesisJobInput): CommandContext {
  const a = input.actor;
  if (!a) return { org, principal: SYSTEM_PRINCIPAL, credential_id: null, agent_id: null, request_id: `job:${jobId}` };
  return {
    org,
    principal: a.principal,
    credential_id: a.credential_id,
    agent_id: a.agent_id,
    request_id: `job:${jobId}`,
    ...(a.access ? { access: a.access } : {}),
    ...(a.origin ? { origin: a.origin } : {}),
  };
}

const progress = (nodes: number, edges: number) => ({ total_chunks: 0, processed_chunks: 0, nodes_created: nodes, edges_created: edges });

/**
 * The `synthesis` job (REFERENCE §10): mines the Project's signals, takes the best claim
 * clusters (one per subject) and writes one Article each (`article_type:"synthesis"`) with
 * Article → subject Covers and Article → Project PartOfProject, all in one unit of work once
 * every text is written, so a failed or cancelled run writes nothing.
 */
@Injectable()
export class SynthesisJobHandler implements JobHandler {
  constructor(
    private readonly corpus: ProjectCorpusService,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
    private readonly models: MeteredLanguageModels,
  ) {}

  async run(job: QueuedJob, ctx: JobContext): Promise<{ articles_created: number; article_uids: string[] }> {
    const input = job.input as SynthesisJobInput;
    await ctx.progress(progress(0, 0));
    const c = await this.corpus.load(job.org, input.project_uid);
    const projectNode = (await this.corpus.nodeOf(job.org, input.project_uid))!;
    const project = { uid: projectNode.uid, label: projectNode.label };
    const chosen = pickGroups(c, claimGroups(c, DEFAULT_TARGET_TYPES));
    // every model call is metered to the organization (GET /v1/usage); null under `offline`
    const writer = new ArticleWriter(this.models.forOrganization(job.org, { requestId: `job:${job.id}`, purpose: 'synthesis' }));
    const written: { text: WrittenArticle; subject: string; claims: string[] }[] = [];
    for (const g of chosen) {
      ctx.signal.throwIfAborted();
      const m = articleMaterial(c, g, project);
      written.push({ text: await writer.write(m, ctx.signal), subject: m.subject.uid, claims: m.claim_uids });
    }
    ctx.signal.throwIfAborted();
    if (!written.length) return { articles_created: 0, article_uids: [] };
    const uids = await this.uow.run(
      jobContext(job.org, job.id, input),
      async (tx) => {
        const p = await tx.liveNode(input.project_uid, 'project_uid', ['Project']);
        const out: string[] = [];
        for (const w of written) {
          const subject = await tx.node(w.subject);
          if (!subject || subject.tombstone_at !== null) continue; // gone since the signals were read
          const article = createNode(tx, {
            node_type: 'Article',
            label: w.text.label,
            props: {
              content: w.text.content,
              article_type: 'synthesis',
              covers_uid: w.subject,
              questions: w.text.questions,
              project_uid: input.project_uid,
              source_node_uids: w.claims,
              generated_by: w.text.generated_by,
              generated_at: tx.now,
            },
          });
          createEdge(tx, { edge_type: 'Covers', props: { coverage: 'primary' } }, article, subject);
          createEdge(tx, { edge_type: 'PartOfProject', props: { admitted_at: tx.now, admitted_by: input.requested_by } }, article, p);
          out.push(article.uid);
        }
        return out;
      },
    );
    await ctx.progress(progress(uids.length, uids.length * 2));
    return { articles_created: uids.length, article_uids: uids };
  }
}
