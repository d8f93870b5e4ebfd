import { Controller, Get, Inject, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { Auth } from '@strata/auth/request-context.decorator';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Errors } from '@strata/domain/errors';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body, coerceQuery, parseIsoDateTime, readBoolean, readNumber, readString } from '@strata/domain/validation';
import { ToolGrantService } from '@strata/platform/scope/tool-grants.service';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { pathUid } from '../../platform/http/path-params';
import { presentDrift, presentRegistryTool } from '../connections/connection-presenter';
import { Answers } from '../../platform/http/responses/response-fields';
import { RegistryResponse } from './registry.response';

const MAX_REGISTRY_TOOLS = 5000;

@ApiTags('mcp: connections')
@Controller('v1/mcp/registry')
export class RegistryController {
  constructor(
    private readonly reads: McpReadModel,
    private readonly grants: ToolGrantService,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Every tool of the organization’s connections (by connection, then name) with its hash, drift state and approval verdict, and the drift events, newest first' })
  @Answers(200, 'the tools and their drift events', RegistryResponse)
  async registry(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['drift_limit'], ['include_removed']);
    const org = auth.org_id;
    const connectionId = readString(q, 'connection_id');
    if (connectionId !== undefined) pathUid(connectionId, 'connection_id');
    const includeRemoved = readBoolean(q, 'include_removed') ?? false;
    const driftLimit = Math.min(readNumber(q, 'drift_limit', { integer: true, min: 0 }) ?? 100, 1000);
    const sinceRaw = readString(q, 'drift_since');
    let since: number | null = null;
    if (sinceRaw !== undefined) {
      const parsed = parseIsoDateTime(sinceRaw);
      if (parsed === null) throw Errors.invalidField('drift_since', 'drift_since must be an ISO 8601 date-time');
      since = parsed;
    }
    const connections = this.reads.liveConnections(org).filter((c) => connectionId === undefined || c.id === connectionId);
    const views = connections.map((c) => this.reads.connection(org, c.id)!);
    let tools = views.flatMap((c) => this.reads.tools(org, c.id).filter((t) => includeRemoved || t.status === 'active').map((t) => ({ c, t })));
    // an agent-bound key sees its agent's granted tools only, and their drift
    const agent = auth.bound_agent_id;
    if (agent) {
      const now = this.clock.now();
      const granted = await Promise.all(tools.map(({ t }) => this.grants.isGranted(org, agent, t.affordance_uid, now)));
      tools = tools.filter((_, i) => granted[i]);
    }
    tools = tools.slice(0, MAX_REGISTRY_TOOLS);
    const visible = agent ? new Set(tools.map(({ c, t }) => `${c.id}\u0000${t.name}`)) : null;
    const drift = this.reads.drift(org, { connectionIds: connections.map((c) => c.id), since, limit: visible ? 100_000 : driftLimit });
    let items = drift.items;
    let hasMore = drift.has_more;
    if (visible) {
      const mine = items.filter((d) => visible.has(`${d.connection_id}\u0000${d.tool_name}`));
      items = mine.slice(0, driftLimit);
      hasMore = mine.length > driftLimit || drift.has_more;
    }
    return {
      tools: tools.map(({ c, t }) => presentRegistryTool(c, t)),
      drift_events: items.map((d) => presentDrift(d)),
      drift_has_more: hasMore,
    };
  }
}
