import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { ACTION_SKILL } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /action/skill: actions and rules in libs/domain/src/cognitive/action-skill.ts. */
@ApiTags('cognitive: action')
@Controller()
export class ActionSkillController {
  constructor(private readonly commands: CommandBus) {}

  @Post('action/skill')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Propose, review and govern reusable Skills through guarded lifecycle transitions' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, ACTION_SKILL, auth, rid, raw, reply);
  }
}
