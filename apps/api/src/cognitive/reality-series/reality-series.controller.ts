import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { REALITY_SERIES } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /reality/series: actions and rules in libs/domain/src/cognitive/reality-series.ts. */
@ApiTags('cognitive: reality')
@Controller()
export class RealitySeriesController {
  constructor(private readonly commands: CommandBus) {}

  @Post('reality/series')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Create, append, page, aggregate, compare or delete dense numeric time series' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, REALITY_SERIES, auth, rid, raw, reply);
  }
}
