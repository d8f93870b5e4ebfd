import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { INTENT_COMMITMENT } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /intent/commitment: actions and rules in libs/domain/src/cognitive/intent-commitment.ts. */
@ApiTags('cognitive: intent')
@Controller()
export class IntentCommitmentController {
  constructor(private readonly commands: CommandBus) {}

  @Post('intent/commitment')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Create goals, projects, milestones with parent/motivation edges' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, INTENT_COMMITMENT, auth, rid, raw, reply);
  }
}
