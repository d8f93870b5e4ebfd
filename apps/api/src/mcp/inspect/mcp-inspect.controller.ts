import { Body as ReqBody, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { OwnerAdminJwt } from '@strata/auth/route-tags';
import { InspectMcpDto } from './inspect-mcp.dto';
import { McpInspectHandler } from './mcp-inspect.handler';
import { Answers } from '../../platform/http/responses/response-fields';
import { InspectResponse } from './inspect.response';

@ApiTags('mcp: connections')
@Controller('v1/mcp')
export class McpInspectController {
  constructor(private readonly handler: McpInspectHandler) {}

  @Post('inspect')
  @HttpCode(200)
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Try an MCP server before saving it: reachability, auth discovery, protocol negotiation, screened tools (nothing is saved)' })
  @Answers(200, 'the checks, the auth found and the screened tools (also when checks fail)', InspectResponse)
  inspect(@ReqBody() body: InspectMcpDto) {
    return this.handler.inspect(body.url, body.auth ?? { type: 'none' });
  }
}
