import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { AGENT_EXECUTION } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /agent/execution: actions and rules in libs/domain/src/cognitive/agent-execution.ts. */
@ApiTags('cognitive: agent')
@Controller()
export class AgentExecutionController {
  constructor(private readonly commands: CommandBus) {}

  @Post('agent/execution')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Track execution lifecycle (start, complete, fail); register agents' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, AGENT_EXECUTION, auth, rid, raw, reply);
  }
}
