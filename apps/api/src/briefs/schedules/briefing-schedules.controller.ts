import { Body as ReqBody, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, OwnerAdminJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { Body, coerceQuery, readPage } from '@strata/domain/validation';
import { PatchBriefingScheduleDto, PutBriefingScheduleDto } from './briefing-schedule.dto';
import { BriefingScheduleHandlers } from './briefing-schedule.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { BriefingScheduleDeletedResponse, BriefingSchedulePage, BriefingScheduleWithRuns, BriefingScheduleWritten, BriefingSendNowResponse } from './briefing-schedule.response';

/** Briefing schedules (REFERENCE §12.7): a Project's brief sent to one recipient on one channel. */
@ApiTags('projects: briefing schedules')
@Controller('v1/briefings/schedules')
export class BriefingSchedulesController {
  constructor(private readonly handlers: BriefingScheduleHandlers) {}

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Schedules of Projects the caller may read, and in-app schedules addressed to the caller, oldest first' })
  @Answers(200, 'a page of schedules', BriefingSchedulePage)
  list(@Auth() auth: AuthContext, @Query() raw: Body) {
    const { limit, offset } = readPage(coerceQuery(raw, ['limit', 'offset']), { limit: 50, max: 1000 });
    return this.handlers.list(auth, BriefingScheduleHandlers.filterOf(raw), limit, offset);
  }

  @Post()
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Create a schedule (201; a webhook one returns its signing_secret once) or replace the one with the same project, channel and recipient (200, same id, runs kept)' })
  @Answers(201, 'the new schedule (webhook: with its signing secret)', BriefingScheduleWritten)
  @Answers(200, 'the replaced schedule', BriefingScheduleWritten)
  async put(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: PutBriefingScheduleDto, @Res({ passthrough: true }) reply: FastifyReply) {
    const r = await this.handlers.put(auth, body, rid);
    reply.status(r.created ? 201 : 200);
    return r.body;
  }

  @Get(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'A schedule with its runs, newest first (the 50 most recent)' })
  @Answers(200, 'the schedule with its runs', BriefingScheduleWithRuns)
  get(@Auth() auth: AuthContext, @Param('id') id: string) {
    return this.handlers.get(auth, id);
  }

  @Patch(':id')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Pause, resume, retime or rotate the secret of a schedule; project_uid, channel and recipient are immutable (422)' })
  @Answers(200, 'the schedule (with signing_secret after rotate_secret)', BriefingScheduleWritten)
  patch(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: PatchBriefingScheduleDto) {
    return this.handlers.patch(auth, id, body, rid);
  }

  @Post(':id/send-now')
  @HttpCode(202)
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Run the schedule now, even when paused (202 {run}); 409 run_active while a run is pending or running' })
  @Answers(202, 'the queued run', BriefingSendNowResponse)
  sendNow(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string) {
    return this.handlers.sendNow(auth, id, rid);
  }

  @Delete(':id')
  @OwnerAdminJwt()
  @ApiOperation({ summary: 'Delete a schedule; its pending run is cancelled' })
  @Answers(200, 'the schedule is deleted', BriefingScheduleDeletedResponse)
  remove(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string) {
    return this.handlers.remove(auth, id, rid);
  }
}
