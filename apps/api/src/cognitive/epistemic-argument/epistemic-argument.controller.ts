import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { EPISTEMIC_ARGUMENT } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /epistemic/argument: actions and rules in libs/domain/src/cognitive/epistemic-argument.ts. */
@ApiTags('cognitive: epistemic')
@Controller()
export class EpistemicArgumentController {
  constructor(private readonly commands: CommandBus) {}

  @Post('epistemic/argument')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Build claim + evidence + warrant + argument and their edges in one call' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, EPISTEMIC_ARGUMENT, auth, rid, raw, reply);
  }
}
