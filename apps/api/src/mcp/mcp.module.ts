import { Module } from '@nestjs/common';
import { McpApprovalsModule } from '@strata/mcp/approvals';
import { McpConnectionsModule } from '@strata/mcp/connections';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { ApprovalHandlers } from './approvals/approval.handlers';
import { ApprovalsController } from './approvals/approvals.controller';
import { ConnectionHandlers } from './connections/connection.handlers';
import { ConnectionResyncJob } from './connections/connection-resync.job';
import { ConnectionsController } from './connections/connections.controller';
import { McpInspectController } from './inspect/mcp-inspect.controller';
import { McpInspectHandler } from './inspect/mcp-inspect.handler';
import { OAuthController } from './oauth/oauth.controller';
import { RegistryController } from './registry/registry.controller';
import { McpEndpoint } from './server/mcp-endpoint';

/** MCP: Strata's own MCP server (`POST /mcp`) and connections to tool servers (`/v1/mcp/*`). */
@Module({
  imports: [McpConnectionsModule, McpApprovalsModule, ScopeModule],
  controllers: [McpInspectController, ConnectionsController, RegistryController, OAuthController, ApprovalsController],
  providers: [McpEndpoint, McpInspectHandler, ConnectionHandlers, ApprovalHandlers, ConnectionResyncJob],
})
export class McpModule {}
