import { Body as ReqBody, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { AgentAccessGuard, AgentRoute } from '../agent-access.guard';
import { pathId } from '../agent-fields';
import { CreateScheduleDto, UpdateScheduleDto, scheduleInput } from './schedule.dto';
import { ScheduleHandlers } from './schedule.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { AgentScheduleDeleted, AgentSchedulePage, AgentScheduleResponse } from './schedule.response';

@ApiTags('managed agents: schedules')
@Controller('v1/agents/schedules')
@UseGuards(AgentAccessGuard)
export class SchedulesController {
  constructor(private readonly handlers: ScheduleHandlers) {}

  @Post()
  @ApiKeyOrJwt()
  @AgentRoute('manage')
  @ApiOperation({ summary: 'Schedule an agent: a cron pattern in a time zone opens a session with the rendered message at each firing' })
  @Answers(201, 'the schedule', AgentScheduleResponse)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateScheduleDto) {
    return this.handlers.create(auth, rid, scheduleInput(body));
  }

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Schedules, newest first; filter by agent_id' })
  @Answers(200, 'a page of schedules', AgentSchedulePage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const q = coerceQuery(raw, ['limit', 'offset']);
    const { limit, offset } = readPage(q, { limit: 50, max: 1000 });
    const agentId = typeof q.agent_id === 'string' && q.agent_id ? q.agent_id : undefined;
    return this.handlers.list(auth, agentId, limit, offset);
  }

  @Patch(':id')
  @ApiKeyOrJwt()
  @AgentRoute('manage')
  @ApiOperation({ summary: 'Change a schedule; next_run_at is recomputed when cron, timezone or enabled change' })
  @Answers(200, 'the schedule', AgentScheduleResponse)
  update(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: UpdateScheduleDto) {
    return this.handlers.update(auth, rid, pathId(id), scheduleInput(body));
  }

  @Delete(':id')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @AgentRoute('manage')
  @ApiOperation({ summary: 'Delete a schedule; unknown or already deleted → 404' })
  @Answers(200, 'the schedule is deleted', AgentScheduleDeleted)
  remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string) {
    return this.handlers.remove(auth, rid, pathId(id));
  }
}
