import { Body as ReqBody, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { OwnerJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, coerceQuery, readBoolean, readPage } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { SetSpaceGrantDto } from './space-grant.dto';
import { SpaceHandlers } from './space.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { SpaceGrantPage, SpaceGrantResponse, SpaceGrantRevokedResponse, SpacePage } from './space.response';

/** Spaces are Space nodes (written through the graph routes by the owner); these routes list them and manage their grants. */
@ApiTags('governance: Spaces')
@Controller('v1/spaces')
export class SpacesController {
  constructor(private readonly handlers: SpaceHandlers) {}

  @Get()
  @OwnerJwt()
  @ApiOperation({ summary: 'Spaces with node counts per classification and grant counts, oldest first' })
  @Answers(200, 'a page of Spaces', SpacePage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset'], ['include_tombstoned']);
    const { limit, offset } = readPage(q, { limit: 100, max: 1000 });
    return this.handlers.list(auth, readBoolean(q, 'include_tombstoned') ?? false, limit, offset);
  }

  @Get(':space_uid/grants')
  @OwnerJwt()
  @ApiOperation({ summary: 'Grants of a Space, oldest first' })
  @Answers(200, 'a page of grants', SpaceGrantPage)
  grants(@Auth() auth: AuthContext, @Param('space_uid') spaceUid: string, @Query() raw: Body) {
    const { limit, offset } = readPage(coerceQuery(raw, ['limit', 'offset']), { limit: 100, max: 1000 });
    return this.handlers.grants(auth, pathUid(spaceUid, 'space_uid'), limit, offset);
  }

  @Post(':space_uid/grants')
  @OwnerJwt()
  @ApiOperation({ summary: 'Grant a user or agent read or write access to a Space, up to a classification ceiling: 201 new, 200 replaced' })
  @Answers(201, 'the new grant', SpaceGrantResponse)
  @Answers(200, 'the replaced grant', SpaceGrantResponse)
  async setGrant(
    @Auth() auth: AuthContext,
    @RequestId() rid: string,
    @Param('space_uid') spaceUid: string,
    @ReqBody() body: SetSpaceGrantDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const r = await this.handlers.setGrant(auth, pathUid(spaceUid, 'space_uid'), body, rid);
    reply.status(r.created ? 201 : 200);
    return r.grant;
  }

  @Delete(':space_uid/grants/:principal_uid')
  @OwnerJwt()
  @ApiOperation({ summary: 'Revoke a Space grant; it acts from the next request' })
  @Answers(200, 'the grant is revoked', SpaceGrantRevokedResponse)
  revoke(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('space_uid') spaceUid: string, @Param('principal_uid') principalUid: string) {
    return this.handlers.revokeGrant(auth, pathUid(spaceUid, 'space_uid'), principalUid, rid);
  }
}
