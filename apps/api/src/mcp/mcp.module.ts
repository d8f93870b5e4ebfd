import { Module } from '@nestjs/common';
import { McpConnectionsModule } from '@strata/mcp/connections';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { ConnectionHandlers } from './connections/connection.handlers';
import { ConnectionsController } from './connections/connections.controller';
import { McpInspectController } from './inspect/mcp-inspect.controller';
import { McpInspectHandler } from './inspect/mcp-inspect.handler';
import { OAuthController } from './oauth/oauth.controller';
import { RegistryController } from './registry/registry.controller';
import { McpEndpoint } from './server/mcp-endpoint';

/** MCP: Strata's own MCP server (`POST /mcp`) and connections to tool servers (`/v1/mcp/*`). */
@Module({
  imports: [McpConnectionsModule, ScopeModule],
  controllers: [McpInspectController, ConnectionsController, RegistryController, OAuthController],
  providers: [McpEndpoint, McpInspectHandler, ConnectionHandlers],
})
export class McpModule {}
