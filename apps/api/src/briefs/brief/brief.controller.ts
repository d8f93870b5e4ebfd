import { Body as ReqBody, Controller, Get, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { BriefHandlers } from './brief.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { BriefHistoryPage, BriefItemPatchResponse, BriefRegeneratedResponse, BriefRegenerationQueuedResponse, BriefStateResponse, BriefVersionRecord } from './brief.response';

/** A Project's living brief (REFERENCE §12.6): state, regeneration, item pins and corrections, history. */
@ApiTags('projects: briefs')
@Controller('projects/:project_uid/brief')
export class BriefController {
  constructor(private readonly handlers: BriefHandlers) {}

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Brief state (none, current or stale against the sources now) and the current version' })
  @Answers(200, 'the brief state with the current version', BriefStateResponse)
  state(@Auth() auth: AuthContext, @Param('project_uid') uid: string) {
    return this.handlers.state(auth, pathUid(uid, 'project_uid'));
  }

  @Post('regenerate')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({
    summary:
      'Regenerate: 200 reused when sources and generator are unchanged (unless force), 201 a new structural version, 202 a queued llm job (kind brief_regenerate)',
  })
  @Answers(200, 'the sources are unchanged: the current version, reused', BriefRegeneratedResponse)
  @Answers(201, 'a new structural version', BriefRegeneratedResponse)
  @Answers(202, 'an LLM regeneration is queued', BriefRegenerationQueuedResponse)
  async regenerate(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('project_uid') uid: string, @ReqBody() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const r = await this.handlers.regenerate(auth, pathUid(uid, 'project_uid'), body, rid);
    reply.status(r.status);
    return r.body;
  }

  @Patch('items/:item_id')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Pin, unpin or correct (with byte-exact citations) an item of the current version' })
  @Answers(200, 'whether anything changed, the current version and the item', BriefItemPatchResponse)
  patch(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('project_uid') uid: string, @Param('item_id') itemId: string, @ReqBody() body: unknown) {
    return this.handlers.patchItem(auth, pathUid(uid, 'project_uid'), itemId, body, rid);
  }

  @Get('history')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Versions, newest first, with their material changes' })
  @Answers(200, 'a page of versions, newest first', BriefHistoryPage)
  history(@Auth() auth: AuthContext, @Param('project_uid') uid: string, @Query() raw: Body) {
    return this.handlers.history(auth, pathUid(uid, 'project_uid'), raw);
  }

  @Get('history/:version')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'One version of the brief, as it was' })
  @Answers(200, 'the version', BriefVersionRecord)
  version(@Auth() auth: AuthContext, @Param('project_uid') uid: string, @Param('version') version: string) {
    return this.handlers.historyVersion(auth, pathUid(uid, 'project_uid'), version);
  }
}
