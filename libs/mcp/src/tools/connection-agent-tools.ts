import { Inject, Injectable, Logger } from '@nestjs/common';
import { DomainError } from '@strata/domain/errors';
import { McpApprovalMode } from '@strata/domain/mcp';
import { CLOCK, Clock } from '@strata/domain/time';
import { ToolGrantService } from '@strata/platform/scope/tool-grants.service';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { ConnectionTools } from '../connections/connection-tools.service';
import { AgentMcpCallResult, AgentMcpTool, AgentToolSource } from './agent-tool-source.port';

/** what REFERENCE §16.4 lets a model see of a tool's description */
const DESCRIPTION_MAX = 4000;

/**
 * An agent's MCP tools from the saved connections (REFERENCE §13.4, §16.4): the active tools
 * of active connections whose Affordance the agent holds a live grant on, called through
 * `ConnectionTools`. The grant is checked again at call time: a revoked grant or a removed
 * tool between the offer and the call is a tool error, never a call.
 */
@Injectable()
export class ConnectionAgentTools implements AgentToolSource {
  private readonly log = new Logger('AgentMcpTools');

  constructor(
    private readonly reads: McpReadModel,
    private readonly tools: ConnectionTools,
    private readonly grants: ToolGrantService,
    private readonly governance: GovernanceReadModel,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  async toolsFor(org: string, agentId: string): Promise<AgentMcpTool[]> {
    const out: AgentMcpTool[] = [];
    // only connections with a tool granted to the agent are listed (a stale one is synced first)
    const granted = this.governance.toolGrantsOf(org, agentId);
    if (!granted.size) return out;
    for (const c of this.reads.liveConnections(org)) {
      if (c.status !== 'active' || !this.reads.tools(org, c.id).some((t) => granted.has(t.affordance_uid))) continue;
      let listed;
      try {
        listed = await this.tools.listTools(org, c.id);
      } catch (err) {
        // a connection that fails its sync offers nothing this time; the others still do
        this.log.warn(`MCP connection ${c.id} offers no tools now: ${(err as Error).message}`);
        continue;
      }
      for (const t of listed) {
        if (!(await this.grants.isGranted(org, agentId, t.affordance_uid, this.clock.now()))) continue;
        out.push({
          model_name: t.model_name,
          description: `[MCP: ${c.name}] ${t.description}`.slice(0, DESCRIPTION_MAX),
          input_schema: t.input_schema,
          connection_id: c.id,
          connection_name: c.name,
          tool_name: t.name,
          affordance_uid: t.affordance_uid,
          requires_approval: t.requires_approval,
          approval_mode: c.approval_mode as McpApprovalMode,
        });
      }
    }
    return out;
  }

  async call(org: string, agentId: string, tool: AgentMcpTool, args: Record<string, unknown>, signal: AbortSignal): Promise<AgentMcpCallResult> {
    if (!(await this.grants.isGranted(org, agentId, tool.affordance_uid, this.clock.now())))
      return { status: 'error', result: { code: 'tool_not_granted' }, error: { code: 'tool_not_granted', message: `the agent holds no live grant on ${tool.model_name}` } };
    if (signal.aborted) throw signal.reason;
    try {
      const outcome = await this.tools.callTool(org, tool.connection_id, tool.tool_name, args, signal);
      if (!outcome.ok) return { status: 'error', result: { code: outcome.error.code }, error: outcome.error };
      if (outcome.is_error) return { status: 'error', result: outcome.text, error: { code: 'tool_error', message: outcome.text.slice(0, 500) } };
      return { status: 'ok', result: outcome.text, error: null };
    } catch (err) {
      if (err instanceof DomainError) return { status: 'error', result: { code: err.code }, error: { code: err.code === 'invalid_transition' ? 'tool_unavailable' : err.code, message: err.message } };
      throw err;
    }
  }
}
