import { Module } from '@nestjs/common';
import { McpEndpoint } from './server/mcp-endpoint';

/** MCP: Strata's own MCP server (`POST /mcp`). */
@Module({ providers: [McpEndpoint] })
export class McpModule {}
