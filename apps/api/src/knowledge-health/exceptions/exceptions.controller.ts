import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { Auth } from '@strata/auth/request-context.decorator';
import { UserJwt } from '@strata/auth/route-tags';
import { Answers } from '../../platform/http/responses/response-fields';
import { HealthExceptionPage } from '../knowledge-health.response';
import { ExceptionListHandler } from './exception-list.handler';

@ApiTags('knowledge health')
@Controller('v1/knowledge-health/exceptions')
export class ExceptionsController {
  constructor(private readonly handler: ExceptionListHandler) {}

  @Get()
  @UserJwt()
  @Answers(200, 'a page of exceptions with per-kind groups', HealthExceptionPage)
  @ApiOperation({
    summary: 'Knowledge Health exceptions the caller can see: by severity, then first detection; cursor-paged, with per-kind groups',
  })
  @ApiQuery({ name: 'status', required: false, description: 'comma list of open, acknowledged, resolved (default open,acknowledged)' })
  @ApiQuery({ name: 'kind', required: false, description: 'comma list of exception kinds (default all)' })
  @ApiQuery({ name: 'severity', required: false, description: 'comma list of high, medium, low (default all)' })
  @ApiQuery({ name: 'project', required: false, description: 'a live Project uid: exceptions whose subject it admits' })
  @ApiQuery({ name: 'space', required: false, description: 'a live Space uid: exceptions whose subject is in it' })
  @ApiQuery({ name: 'limit', required: false, description: '1-500, default 50' })
  @ApiQuery({ name: 'cursor', required: false, description: 'next_cursor of a previous page with the same filters' })
  list(@Auth() auth: AuthContext, @Query() query: Record<string, unknown>) {
    return this.handler.list(auth, query);
  }
}
