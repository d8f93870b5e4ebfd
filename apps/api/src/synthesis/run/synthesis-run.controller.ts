import { Body as ReqBody, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { SynthesisQueuedResponse } from './synthesis-run.response';
import { LANGUAGE_MODELS, LanguageModels, LlmNotConfiguredError } from '@strata/ai';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, assertCanWrite } from '@strata/auth/request-context.decorator';
import { assertObjectBody } from '@strata/domain/validation';
import { JOB_QUEUE, JobQueue } from '@strata/jobs/queue/job-queue.port';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
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
    @Inject(JOB_QUEUE) private readonly queue: JobQueue,
    @Inject(LANGUAGE_MODELS) private readonly models: LanguageModels,
  ) {}

  @Post('run/:project_uid')
  @HttpCode(202)
  @ApiKeyOrJwt()
  @ApiOperation({
    summary:
      "Queue a synthesis job (kind `synthesis`, poll GET /jobs/{id}): the Project's best claim clusters become Article nodes (article_type synthesis) with Covers and PartOfProject edges. 501 llm_not_configured without a language model",
  })
  @Answers(202, 'queued (or the run already queued for this Project)', SynthesisQueuedResponse)
  async run(@Auth() auth: AuthContext, @Param('project_uid') raw: string, @ReqBody() body: unknown): Promise<SynthesisQueuedResponse> {
    const uid = pathUid(raw, 'project_uid');
    assertObjectBody(body);
    assertCanWrite(auth);
    const project = await this.corpus.project(await this.scopes.of(auth), uid);
    if (this.models.provider === null) throw new LlmNotConfiguredError('synthesis');
    const input: SynthesisJobInput = { project_uid: uid, title: `Synthesis of ${project.label}`, requested_by: `${auth.principal.kind}:${auth.principal.id}` };
    // one run per Project at a time: asking again while it is queued or running gives that job
    const { job } = await this.queue.enqueue({ kind: SYNTHESIS_JOB_KIND, org: auth.org_id, input, dedupeKey: `synthesis:${uid}` });
    return { job_id: job.id };
  }
}
