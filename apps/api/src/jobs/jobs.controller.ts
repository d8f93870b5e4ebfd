import { Body as ReqBody, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, assertCanWrite } from '@strata/auth/request-context.decorator';
import { readJobListQuery } from '@strata/domain/jobs';
import { Body, assertObjectBody, coerceQuery } from '@strata/domain/validation';
import { assertGraphWide } from '@strata/platform/scope/graph-wide';
import { pathUid } from '../platform/http/path-params';
import { JobRegistry, JobVisibility } from '@strata/jobs/job-registry';
import { JobRecord } from '@strata/domain/jobs';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { JobPage, JobResponse } from './job.response';

/** The Project a synthesis job works on, from what it was queued with. */
function projectOf(j: JobRecord, input: unknown): string | null {
  if (j.kind !== 'synthesis' || !input || typeof input !== 'object') return null;
  const uid = (input as { project_uid?: unknown }).project_uid;
  return typeof uid === 'string' ? uid : null;
}

/**
 * Background jobs (REFERENCE §9.4): list, poll, cancel. Jobs work on the whole organization
 * (embed-all counts and embeds every live node), so Space- or Project-scoped credentials,
 * which may not start one, may not see or cancel one either (403 scope_denied, as /stats).
 * A caller the Space rule hides nodes from does not see a job of a Document, or a synthesis job
 * of a Project, hidden from it (its title names that Project): it is absent, as an unknown job
 * (REFERENCE §1.8).
 */
@ApiTags('jobs')
@Controller('jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobRegistry,
    private readonly scopes: ReadScopeService,
  ) {}

  /** The jobs the caller may see: all, unless the Space rule hides a job's Document or Project from it. */
  private async visibleTo(auth: AuthContext): Promise<JobVisibility | undefined> {
    const scope = await this.scopes.of(auth);
    return scope.restricted ? (j, input) => [j.document_uid, projectOf(j, input)].every((u) => u === null || scope.allows(u)) : undefined;
  }

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "The organization's jobs, newest first (filters: status, kind, document_uid; limit 50, at most 1000)" })
  @ApiOkResponse({ type: JobPage })
  async list(@Auth() auth: AuthContext, @Query() query: Body): Promise<JobPage> {
    assertGraphWide(auth);
    return this.jobs.list(auth.org_id, readJobListQuery(coerceQuery(query, ['limit', 'offset'])), await this.visibleTo(auth));
  }

  @Get(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'A job record: status, progress, result or error' })
  @ApiOkResponse({ type: JobResponse })
  async get(@Auth() auth: AuthContext, @Param('id') id: string): Promise<JobResponse> {
    assertGraphWide(auth);
    return this.jobs.get(auth.org_id, pathUid(id, 'id'), await this.visibleTo(auth));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Cancel a pending or processing job; it stops after the step in progress (409 invalid_transition once finished)' })
  @ApiOkResponse({ type: JobResponse })
  async cancel(@Auth() auth: AuthContext, @Param('id') id: string, @ReqBody() raw: unknown): Promise<JobResponse> {
    assertCanWrite(auth);
    assertGraphWide(auth);
    assertObjectBody(raw);
    return this.jobs.cancel(auth.org_id, pathUid(id, 'id'), await this.visibleTo(auth));
  }
}
