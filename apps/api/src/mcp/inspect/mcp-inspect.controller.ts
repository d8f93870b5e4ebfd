import { Body as ReqBody, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { OwnerAdminJwt } from '@strata/auth/route-tags';
import { InspectMcpDto } from './inspect-mcp.dto';
import { McpInspectHandler } from './mcp-inspect.handler';

@ApiTags('mcp: connections')
@Controller('v1/mcp')
export class McpInspectController {
  constructor(private readonly handler: McpInspectHandler) {}

  @Post('inspect')
  @HttpCode(200)
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Try an MCP server before saving it: reachability, auth discovery, protocol negotiation, screened tools (nothing is saved)' })
  inspect(@ReqBody() body: InspectMcpDto) {
    return this.handler.inspect(body.url, body.auth ?? { type: 'none' });
  }
}
