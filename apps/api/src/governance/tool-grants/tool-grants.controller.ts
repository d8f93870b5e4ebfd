import { Body as ReqBody, Controller, Delete, Get, Param, Put, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt, UserJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, coerceQuery, readBoolean, readPage } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { PutToolGrantDto } from './tool-grant.dto';
import { ToolGrantHandlers } from './tool-grant.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { ToolGrantPage, ToolGrantResponse, ToolGrantRevokedResponse } from './tool-grant.response';

/** Which tools (Affordances) an agent may invoke. Not plan-gated. */
@ApiTags('governance: agent tool grants')
@Controller('v1/agents/:id/tool-grants')
export class ToolGrantsController {
  constructor(private readonly handlers: ToolGrantHandlers) {}

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'The live Affordances in the agent’s scope, by label, with their grant' })
  @Answers(200, 'the agent’s tools with their grants', ToolGrantPage)
  list(@Auth() auth: AuthContext, @Param('id') id: string, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset'], ['granted']);
    const { limit, offset } = readPage(q, { limit: 100, max: 1000 });
    return this.handlers.list(auth, pathUid(id, 'id'), readBoolean(q, 'granted'), limit, offset);
  }

  @Put(':affordance_uid')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Let the agent invoke the tool, optionally until expires_at: 201 new, 200 updated' })
  @Answers(201, 'the new grant', ToolGrantResponse)
  @Answers(200, 'the updated grant', ToolGrantResponse)
  async put(
    @Auth() auth: AuthContext,
    @RequestId() rid: string,
    @Param('id') id: string,
    @Param('affordance_uid') affordanceUid: string,
    @ReqBody() body: PutToolGrantDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const r = await this.handlers.put(auth, pathUid(id, 'id'), pathUid(affordanceUid, 'affordance_uid'), body, rid);
    reply.status(r.created ? 201 : 200);
    return r.grant;
  }

  @Delete(':affordance_uid')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Revoke the agent’s grant on the tool' })
  @Answers(200, 'the grant is revoked', ToolGrantRevokedResponse)
  revoke(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Param('affordance_uid') affordanceUid: string) {
    return this.handlers.revoke(auth, pathUid(id, 'id'), pathUid(affordanceUid, 'affordance_uid'), rid);
  }
}
