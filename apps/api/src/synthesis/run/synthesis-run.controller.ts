import { Body as ReqBody, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { SynthesisQueuedResponse } from './synthesis-run.response';
import { LANGUAGE_MODELS, LanguageModels, LlmNotConfiguredError } from '@strata/ai';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite } from '@strata/auth/request-context.decorator';
import { DomainError } from '@strata/domain/errors';
import { decideCreateNode } from '@strata/domain/graph';
import { assertObjectBody } from '@strata/domain/validation';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { requestOrigin } from '@strata/platform/policy/http-request';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { SpaceAccessService } from '@strata/platform/scope/space-access.service';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { pathUid } from '../../platform/http/path-params';
import { ProjectCorpusService } from '../signals/project-corpus.service';
import { SYNTHESIS_JOB_KIND, SynthesisJobInput } from './synthesis-job.handler';

/** `POST /synthesis/run/{project_uid}` (REFERENCE §10): queues the Article-writing job. */
@ApiTags('synthesis')
@Controller('synthesis')
export class SynthesisRunController {
  constructor(
    private readonly corpus: ProjectCorpusService,
    private readonly scopes: ReadScopeService,
    private readonly spaces: SpaceAccessService,
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
    @Inject(UNIT_OF_WORK) private readonly uow: UnitOfWork,
  ) {}

  @Post('run/:project_uid')
  @HttpCode(202)
  @ApiKeyOrJwt()
  @ApiOperation({
    summary:
      "Queue a synthesis job (kind `synthesis`, poll GET /jobs/{id}): the Project's best claim clusters become Article nodes (article_type synthesis) with Covers and PartOfProject edges. 501 llm_not_configured without a language model",
  })
  @Answers(202, 'queued (or the run already queued for this Project)', SynthesisQueuedResponse)
  async run(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('project_uid') raw: string, @ReqBody() body: unknown): Promise<SynthesisQueuedResponse> {
    const uid = pathUid(raw, 'project_uid');
    assertObjectBody(body);
    assertCanWrite(auth);
    const project = await this.corpus.project(await this.scopes.of(auth), uid);
    if (this.models.provider === null) throw new LlmNotConfiguredError('synthesis');
    // Articles are a Project's outputs, never in its admitted set: outside an agent confined to its grants (§12.1, §13.3)
    if (this.spaces.planFor(auth).agentLimited)
      throw new DomainError(403, 'forbidden', 'an agent confined to its Project and Space grants cannot write Articles: they fall outside every admitted set', { required_role: 'editor' });
    const title = `Synthesis of ${project.label}`;
    // a governed write (REFERENCE §13.6) made by the job: judged now, on the Project and the Article it would create
    const ctx = commandContext(auth, rid);
    await this.uow.run(ctx, async (tx) => {
      tx.writesLater = true;
      await tx.liveNode(uid, 'project_uid', ['Project']);
      tx.wouldCreate.push(decideCreateNode({ node_type: 'Article', label: title, props: { content: title, article_type: 'synthesis', project_uid: uid } }, tx.uuid(), tx.write));
    });
    const input: SynthesisJobInput = {
      project_uid: uid,
      title,
      requested_by: `${auth.principal.kind}:${auth.principal.id}`,
      actor: { principal: auth.principal, credential_id: ctx.credential_id, agent_id: ctx.agent_id, ...(ctx.access ? { access: ctx.access } : {}), ...(ctx.http ? { origin: requestOrigin(ctx.http) } : {}) },
    };
    // one run per Project at a time: asking again while it is queued or running gives that job
    const { job } = await this.queue.enqueue({ kind: SYNTHESIS_JOB_KIND, org: auth.org_id, input, dedupeKey: `synthesis:${uid}` });
    return { job_id: job.id };
  }
}
