import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { REALITY_CAPTURE } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /reality/capture: actions and rules in libs/domain/src/cognitive/reality-capture.ts. */
@ApiTags('cognitive: reality')
@Controller()
export class RealityCaptureController {
  constructor(private readonly commands: CommandBus) {}

  @Post('reality/capture')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Capture a source, snippet, or observation' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, REALITY_CAPTURE, auth, rid, raw, reply);
  }
}
