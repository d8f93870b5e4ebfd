import { Body as ReqBody, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerAdminJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { SetProjectGrantDto } from './project-grant.dto';
import { ProjectGrantHandlers } from './project-grant.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { ProjectGrantPage, ProjectGrantResponse, ProjectGrantRevokedResponse } from './project-grant.response';

/** Project role grants (REFERENCE §12.8). */
@ApiTags('projects: grants')
@Controller('v1/projects/:project_uid/grants')
export class ProjectGrantsController {
  constructor(private readonly handlers: ProjectGrantHandlers) {}

  @Get()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Role grants on the Project, oldest first' })
  @Answers(200, 'a page of grants', ProjectGrantPage)
  list(@Auth() auth: AuthContext, @Param('project_uid') uid: string, @Query() raw: Body) {
    return this.handlers.list(auth, pathUid(uid, 'project_uid'), raw);
  }

  @Post()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Grant a user (viewer, editor) or an agent (viewer, agent) a role on the Project: 201 new, 200 replaced or unchanged' })
  @Answers(201, 'the new grant', ProjectGrantResponse)
  @Answers(200, 'the replaced or unchanged grant', ProjectGrantResponse)
  // the body is read by the handler once the Project is known (§12.1: the path's Project first)
  @ApiBody({ type: SetProjectGrantDto })
  async set(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('project_uid') uid: string, @ReqBody() body: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    const r = await this.handlers.set(auth, pathUid(uid, 'project_uid'), body, rid);
    reply.status(r.created ? 201 : 200);
    return r.grant;
  }

  @Delete(':principal_uid')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Revoke a Project grant; it acts from the next request' })
  @Answers(200, 'the grant is revoked', ProjectGrantRevokedResponse)
  revoke(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('project_uid') uid: string, @Param('principal_uid') principal: string) {
    return this.handlers.revoke(auth, pathUid(uid, 'project_uid'), principal, rid);
  }
}
