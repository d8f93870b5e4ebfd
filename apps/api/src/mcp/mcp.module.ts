import { Module } from '@nestjs/common';
import { McpInspectController } from './inspect/mcp-inspect.controller';
import { McpInspectHandler } from './inspect/mcp-inspect.handler';
import { McpEndpoint } from './server/mcp-endpoint';

/** MCP: Strata's own MCP server (`POST /mcp`) and connections to tool servers (`/v1/mcp/*`). */
@Module({ controllers: [McpInspectController], providers: [McpEndpoint, McpInspectHandler] })
export class McpModule {}
