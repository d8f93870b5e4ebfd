import { Inject, Injectable } from '@nestjs/common';
import { toolGrantActive, toolNotGranted } from '@strata/domain/governance';
import { GRAPH_READ_MODEL, GraphReadModel } from '@strata/graph-store/graph-read-model.port';
import { GovernanceReadModel } from '@strata/projections/governance/governance-read-model';

/**
 * May agent A invoke tool T now (REFERENCE §13.4)? The one check for `/agent/execution start`
 * with an agent-bound credential and for every MCP tool call made by or for an agent.
 */
@Injectable()
export class ToolGrantService {
  constructor(
    @Inject(GRAPH_READ_MODEL) private readonly graph: GraphReadModel,
    private readonly governance: GovernanceReadModel,
  ) {}

  async isGranted(org: string, agentId: string, affordanceUid: string, now: number): Promise<boolean> {
    const grant = this.governance.toolGrant(org, agentId, affordanceUid);
    if (!grant) return false;
    const tool = await this.graph.getNode(org, affordanceUid);
    return toolGrantActive(grant, !!tool && tool.tombstone_at === null && tool.node_type === 'Affordance', now);
  }

  /** 403 `tool_not_granted` (naming `affordance_uid`) unless the agent may invoke the tool now. */
  async assertGranted(org: string, agentId: string, affordanceUid: string, now: number): Promise<void> {
    if (!(await this.isGranted(org, agentId, affordanceUid, now))) throw toolNotGranted(affordanceUid, agentId);
  }
}
