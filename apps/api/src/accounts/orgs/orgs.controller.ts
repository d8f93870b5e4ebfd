import { Body as ReqBody, Controller, Delete, Get, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { UserJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, assertObjectBody, coerceQuery, readPage, readString } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { readEmail, readRole } from '@strata/domain/accounts/account-input';
import { OrgHandlers } from './org.handlers';

const PAGE = { limit: 100, max: 1000 };

@ApiTags('accounts: organizations')
@Controller('v1/orgs')
export class OrgsController {
  constructor(private readonly handlers: OrgHandlers) {}

  @Post()
  @UserJwt()
  @ApiOperation({ summary: 'Create an organization (the caller is its owner)' })
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown) {
    const name = readString(assertObjectBody(raw), 'name', { required: true, trim: true, max: 200 })!;
    return this.handlers.create(auth, name, rid);
  }

  @Get()
  @UserJwt()
  @ApiOperation({ summary: "The caller's organizations with their role, earliest membership first" })
  list(@Auth() auth: AuthContext, @Query() q: Body) {
    const { limit, offset } = readPage(coerceQuery(q, ['limit', 'offset']), PAGE);
    return this.handlers.list(auth, limit, offset);
  }

  @Get(':org_id/members')
  @UserJwt()
  @ApiOperation({ summary: 'Members of an organization the caller belongs to' })
  members(@Auth() auth: AuthContext, @Param('org_id') orgId: string, @Query() q: Body) {
    const { limit, offset } = readPage(coerceQuery(q, ['limit', 'offset']), PAGE);
    return this.handlers.members(auth, pathUid(orgId, 'org_id'), limit, offset);
  }

  @Post(':org_id/members')
  @UserJwt()
  @ApiOperation({ summary: 'Add a signed-up user by e-mail with a role (owners make owners); an existing member gets the new role' })
  async addMember(
    @Auth() auth: AuthContext,
    @RequestId() rid: string,
    @Param('org_id') orgId: string,
    @ReqBody() raw: unknown,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const body = assertObjectBody(raw);
    const { email_norm } = readEmail(body);
    const r = await this.handlers.addMember(auth, pathUid(orgId, 'org_id'), email_norm, readRole(body, 'member'), rid);
    reply.status(r.created ? 201 : 200);
    return r.member;
  }

  @Delete(':org_id/members/:user_id')
  @UserJwt()
  @ApiOperation({ summary: 'Remove a member (admins cannot remove owners; the last owner stays)' })
  removeMember(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('org_id') orgId: string, @Param('user_id') userId: string) {
    return this.handlers.removeMember(auth, pathUid(orgId, 'org_id'), pathUid(userId, 'user_id'), rid);
  }
}
