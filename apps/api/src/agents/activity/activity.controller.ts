import { Controller, Get, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { ACTIVITY_RETENTION_S } from '@strata/domain/agents';
import { Errors } from '@strata/domain/errors';
import { CLOCK, Clock } from '@strata/domain/time';
import { Body, coerceQuery, parseIsoDateTime, readPage } from '@strata/domain/validation';
import { Inject } from '@nestjs/common';
import { AgentAccessGuard } from '../agent-access.guard';
import { AgentsStore } from '../agents-store';
import { paginated, presentActivity } from '../agent-presenters';
import { boundFilter, checkActivityTypes, invalidTypes } from './activity-filter';
import { Answers } from '../../platform/http/responses/response-fields';
import { ActivityPage } from './activity.response';

@ApiTags('managed agents: activity')
@Controller('v1/agents/activity')
@UseGuards(AgentAccessGuard)
export class ActivityController {
  constructor(
    private readonly store: AgentsStore,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'What the organization’s agents did, newest first (agent_id, types, after=<seq>, since=<ISO>); kept 90 days. Live: GET /v1/agents/activity/ws (WebSocket)' })
  @Answers(200, 'a page of activity, newest first', ActivityPage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset', 'after']);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    const after = q.after;
    if (after !== undefined && (typeof after !== 'number' || !Number.isInteger(after) || after < 0)) throw Errors.invalidField('after', 'after must be a non-negative integer');
    let since: number | undefined;
    if (q.since !== undefined) {
      const t = typeof q.since === 'string' ? parseIsoDateTime(q.since) : null;
      if (t === null) throw Errors.invalidField('since', 'since must be an ISO 8601 date-time');
      since = t / 1000;
    }
    const types = typeof q.types === 'string' && q.types ? checkActivityTypes(q.types.split(',').map((t) => t.trim()), invalidTypes) : undefined;
    const agentIds = typeof q.agent_id === 'string' && q.agent_id ? [q.agent_id] : undefined;
    const f = boundFilter(auth.bound_agent_id, { agent_ids: agentIds, types });
    const rows = this.store.read.activity(auth.org_id, {
      agent_ids: f.agent_ids, types: f.types, after: after as number | undefined, since, notBefore: this.clock.now() - ACTIVITY_RETENTION_S, limit: limit + 1, offset,
    });
    return paginated(rows.slice(0, limit).map(presentActivity), limit, offset, rows.length > limit);
  }
}
