import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { Auth } from '@strata/auth/request-context.decorator';
import { UserJwt } from '@strata/auth/route-tags';
import { Answers } from '../../platform/http/responses/response-fields';
import { HealthSummaryResponse } from '../knowledge-health.response';
import { HealthSummaryHandler } from './health-summary.handler';

@ApiTags('knowledge health')
@Controller('v1/knowledge-health/summary')
export class HealthSummaryController {
  constructor(private readonly handler: HealthSummaryHandler) {}

  @Get()
  @UserJwt()
  @Answers(200, 'the summary', HealthSummaryResponse)
  @ApiOperation({ summary: "Knowledge Health of what the caller can see: state and reasons, evidence completeness, counts, the window's activity, exception totals" })
  @ApiQuery({ name: 'days', required: false, description: 'activity window in days, 1-365 (default 30)' })
  summary(@Auth() auth: AuthContext, @Query() query: Record<string, unknown>) {
    return this.handler.summary(auth, query);
  }
}
