import { Body as ReqBody, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { UserJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { normaliseEmail } from '@strata/domain/accounts';
import { pathUid } from '../../platform/http/path-params';
import { AddMemberDto } from './add-member.dto';
import { CreateOrgDto } from './create-org.dto';
import { OrgHandlers } from './org.handlers';
import { MemberPage, MemberRemovedResponse, MemberResponse, OrgPage, OrgResponse } from './org.response';

const PAGE = { limit: 100, max: 1000 };

@ApiTags('accounts: organizations')
@Controller('v1/orgs')
export class OrgsController {
  constructor(private readonly handlers: OrgHandlers) {}

  @Post()
  @UserJwt()
  @ApiOperation({ summary: 'Create an organization (the caller is its owner)' })
  @ApiCreatedResponse({ type: OrgResponse })
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateOrgDto): Promise<OrgResponse> {
    return this.handlers.create(auth, body.name, rid);
  }

  @Get()
  @UserJwt()
  @ApiOperation({ summary: "The caller's organizations with their role, earliest membership first" })
  @ApiOkResponse({ type: OrgPage })
  list(@Auth() auth: AuthContext, @Query() q: Body): OrgPage {
    const { limit, offset } = readPage(coerceQuery(q, ['limit', 'offset']), PAGE);
    return this.handlers.list(auth, limit, offset);
  }

  @Get(':org_id/members')
  @UserJwt()
  @ApiOperation({ summary: 'Members of an organization the caller belongs to' })
  @ApiOkResponse({ type: MemberPage })
  members(@Auth() auth: AuthContext, @Param('org_id') orgId: string, @Query() q: Body): MemberPage {
    const { limit, offset } = readPage(coerceQuery(q, ['limit', 'offset']), PAGE);
    return this.handlers.members(auth, pathUid(orgId, 'org_id'), limit, offset);
  }

  @Post(':org_id/members')
  @UserJwt()
  @ApiOperation({ summary: 'Add a signed-up user by e-mail with a role (owners make owners); an existing member gets the new role' })
  @ApiCreatedResponse({ type: MemberResponse, description: 'a new member' })
  @ApiOkResponse({ type: MemberResponse, description: 'an existing member, with the role now given' })
  async addMember(
    @Auth() auth: AuthContext,
    @RequestId() rid: string,
    @Param('org_id') orgId: string,
    @ReqBody() body: AddMemberDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<MemberResponse> {
    const r = await this.handlers.addMember(auth, pathUid(orgId, 'org_id'), normaliseEmail(body.email), body.role ?? 'member', rid);
    reply.status(r.created ? 201 : 200);
    return r.member;
  }

  @Delete(':org_id/members/:user_id')
  @UserJwt()
  @ApiOperation({ summary: 'Remove a member (admins cannot remove owners; the last owner stays)' })
  @ApiOkResponse({ type: MemberRemovedResponse })
  removeMember(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('org_id') orgId: string, @Param('user_id') userId: string): Promise<MemberRemovedResponse> {
    return this.handlers.removeMember(auth, pathUid(orgId, 'org_id'), pathUid(userId, 'user_id'), rid);
  }
}
