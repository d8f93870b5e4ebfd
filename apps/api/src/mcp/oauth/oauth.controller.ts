import { Controller, Get, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '@strata/auth/route-tags';
import { Body } from '@strata/domain/validation';
import { McpOAuth } from '@strata/mcp/connections';
import { ConnectionHandlers } from '../connections/connection.handlers';
import { requestOrigin } from '../connections/connections.controller';
import { Answers } from '../../platform/http/responses/response-fields';
import { ClientMetadataDocument } from './client-metadata.response';

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

@ApiTags('mcp: connections')
@Controller('v1/mcp/oauth')
export class OAuthController {
  constructor(
    private readonly handlers: ConnectionHandlers,
    private readonly oauth: McpOAuth,
  ) {}

  @Get('callback')
  @Public()
  @ApiOperation({ summary: 'Where the authorization server sends the browser back (state authenticates): 302 to return_url, else a small HTML page' })
  @ApiResponse({ status: 302, description: 'to return_url, with mcp_connection=<id> and status=<status> added', headers: { location: { schema: { type: 'string' } } } })
  @ApiResponse({ status: 200, description: 'without return_url: a small page saying whether the connection is active', content: { 'text/html': { schema: { type: 'string' } } } })
  async callback(@Query() q: Body, @Res() reply: FastifyReply) {
    const str = (k: string) => (typeof q[k] === 'string' ? (q[k] as string) : undefined);
    const r = await this.handlers.callback({ code: str('code'), state: str('state'), iss: str('iss'), error: str('error') });
    if (r.return_url) {
      const to = new URL(r.return_url);
      to.searchParams.set('mcp_connection', r.connection.id);
      to.searchParams.set('status', r.connection.status);
      return reply.status(302).header('location', to.toString()).send();
    }
    const ok = r.connection.status === 'active';
    const text = ok ? `${r.connection.name} is connected.` : `${r.connection.name} is not connected: ${r.connection.last_error?.code ?? 'pending'}.`;
    return reply
      .status(200)
      .header('content-type', 'text/html; charset=utf-8')
      .send(`<!doctype html><html><head><meta charset="utf-8"><title>Strata</title></head><body><p>${escapeHtml(text)}</p><p>You can close this window.</p></body></html>`);
  }

  @Get('client-metadata.json')
  @Public()
  @ApiOperation({ summary: 'Strata’s OAuth Client ID Metadata Document (its URL is the client_id)' })
  @Answers(200, 'the Client ID Metadata Document', ClientMetadataDocument)
  metadata(@Req() req: FastifyRequest) {
    return this.oauth.clientMetadataDocument(requestOrigin(req));
  }
}
