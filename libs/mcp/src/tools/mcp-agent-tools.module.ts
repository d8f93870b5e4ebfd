import { Module } from '@nestjs/common';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { McpConnectionsModule } from '../connections/mcp-connections.module';
import { AGENT_TOOL_SOURCE } from './agent-tool-source.port';
import { ConnectionAgentTools } from './connection-agent-tools';

/** What managed agents need of MCP: their granted tools (`AGENT_TOOL_SOURCE`). */
@Module({
  imports: [McpConnectionsModule, ScopeModule],
  providers: [ConnectionAgentTools, { provide: AGENT_TOOL_SOURCE, useExisting: ConnectionAgentTools }],
  exports: [AGENT_TOOL_SOURCE],
})
export class McpAgentToolsModule {}
