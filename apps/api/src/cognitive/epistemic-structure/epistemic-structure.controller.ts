import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { EPISTEMIC_STRUCTURE } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /epistemic/structure: actions and rules in libs/domain/src/cognitive/epistemic-structure.ts. */
@ApiTags('cognitive: epistemic')
@Controller()
export class EpistemicStructureController {
  constructor(private readonly commands: CommandBus) {}

  @Post('epistemic/structure')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Define concepts, patterns, mechanisms, models, analogies, theorems, equations' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, EPISTEMIC_STRUCTURE, auth, rid, raw, reply);
  }
}
