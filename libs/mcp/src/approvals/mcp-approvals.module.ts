import { Inject, Module } from '@nestjs/common';
import { PolicyModule } from '@strata/platform/policy/policy.module';
import { approvalNodeAt } from '@strata/domain/mcp';
import { NodeReadViews } from '@strata/platform/read-views/node-read-views';
import { ScopeModule } from '@strata/platform/scope/scope.module';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';
import { McpConnectionsModule } from '../connections/mcp-connections.module';
import { AGENT_TOOL_SOURCE } from '../tools/agent-tool-source.port';
import { ConnectionAgentTools } from '../tools/connection-agent-tools';
import { ApprovalExpiry } from './approval-expiry';
import { ToolApprovals } from './tool-approvals.service';
import { guardToolApprovalNodes } from './tool-approval-guard';

/**
 * What managed agents need of MCP, and what both the MCP and the agents areas share of it:
 * an agent's granted tools (`AGENT_TOOL_SOURCE`), and tool-call approvals with their expiry.
 */
@Module({
  imports: [McpConnectionsModule, ScopeModule, PolicyModule],
  providers: [ConnectionAgentTools, { provide: AGENT_TOOL_SOURCE, useExisting: ConnectionAgentTools }, ToolApprovals, ApprovalExpiry],
  exports: [AGENT_TOOL_SOURCE, ToolApprovals],
})
export class McpApprovalsModule {
  constructor(@Inject(UNIT_OF_WORK) uow: UnitOfWork, views: NodeReadViews, reads: McpReadModel) {
    uow.addCommitCheck(guardToolApprovalNodes);
    // an Approval node reads expired from its approval's expires_at on, before the sweep writes it
    views.add('Approval', (org, node, now) => (node.props.status === 'pending' ? approvalNodeAt(node, reads.approval(org, node.uid), now) : node));
  }
}
