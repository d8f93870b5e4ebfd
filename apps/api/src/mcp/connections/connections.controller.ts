import { Body as ReqBody, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { OwnerAdminJwt, UserJwt } from '@strata/auth/route-tags';
import { Body, coerceQuery, readBoolean, readPage, readString } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { CreateConnectionDto, PatchConnectionDto, ReauthorizeConnectionDto } from './connection.dto';
import { ConnectionHandlers } from './connection.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { McpConnectionDisconnected, McpConnectionPage, McpConnectionRecord, McpSyncResponse } from './connection.response';

/** The origin the request came to (the OAuth redirect URI when STRATA_PUBLIC_URL is unset). */
export function requestOrigin(req: FastifyRequest): string {
  return `${req.protocol}://${req.headers.host ?? 'localhost'}`;
}

@ApiTags('mcp: connections')
@Controller('v1/mcp/connections')
export class ConnectionsController {
  constructor(private readonly handlers: ConnectionHandlers) {}

  @Get()
  @UserJwt()
  @ApiOperation({ summary: 'The organization’s MCP connections, newest first (disconnected ones with include_disconnected=true)' })
  @Answers(200, 'a page of connections', McpConnectionPage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset'], ['include_disconnected']);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    return this.handlers.list(auth, { status: readString(q, 'status'), include_disconnected: readBoolean(q, 'include_disconnected') ?? false, limit, offset });
  }

  @Get(':id')
  @UserJwt()
  @ApiOperation({ summary: 'One MCP connection (never its credentials)' })
  @Answers(200, 'the connection', McpConnectionRecord)
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.handlers.get(auth, pathUid(id, 'id'));
  }

  @Post()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Save a connection to an MCP tool server: the checks run with the credentials, then the baseline sync (201 active), or 422 mcp_check_failed' })
  @Answers(201, 'the connection: active, or pending_auth with its authorization URL (OAuth)', McpConnectionRecord)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateConnectionDto, @Req() req: FastifyRequest) {
    return this.handlers.create(auth, body, rid, requestOrigin(req));
  }

  @Patch(':id')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Rename, change approvals and timeouts, acknowledge drift (url, auth and slug are immutable)' })
  @Answers(200, 'the connection', McpConnectionRecord)
  patch(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: PatchConnectionDto) {
    return this.handlers.patch(auth, pathUid(id, 'id'), body, rid);
  }

  @Delete(':id')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Disconnect: the secrets are destroyed and the tools’ Affordances tombstoned (a second DELETE is a no-op)' })
  @Answers(200, 'the connection is disconnected', McpConnectionDisconnected)
  remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string) {
    return this.handlers.remove(auth, pathUid(id, 'id'), rid);
  }

  @Post(':id/sync')
  @HttpCode(200)
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'List the server’s tools now: added, changed and removed tools become drift events; 502 mcp_sync_failed records the error' })
  @Answers(200, 'the connection and what the sync found', McpSyncResponse)
  runSync(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string) {
    return this.handlers.runSync(auth, pathUid(id, 'id'), rid);
  }

  @Post(':id/reauthorize')
  @HttpCode(200)
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Replace the credentials (static ones after the checks; 422 keeps the old)' })
  @Answers(200, 'the connection (OAuth: with its new authorization URL)', McpConnectionRecord)
  reauthorize(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: ReauthorizeConnectionDto, @Req() req: FastifyRequest) {
    return this.handlers.reauthorize(auth, pathUid(id, 'id'), body, rid, requestOrigin(req));
  }
}
