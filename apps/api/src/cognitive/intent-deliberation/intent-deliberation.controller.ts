import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { INTENT_DELIBERATION } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /intent/deliberation: actions and rules in libs/domain/src/cognitive/intent-deliberation.ts. */
@ApiTags('cognitive: intent')
@Controller()
export class IntentDeliberationController {
  constructor(private readonly commands: CommandBus) {}

  @Post('intent/deliberation')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Open decisions, add options/constraints, resolve decisions, list open ones' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, INTENT_DELIBERATION, auth, rid, raw, reply);
  }
}
