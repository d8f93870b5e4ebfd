import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { MEMORY_SESSION } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /memory/session: actions and rules in libs/domain/src/cognitive/memory-session.ts. */
@ApiTags('cognitive: memory')
@Controller()
export class MemorySessionController {
  constructor(private readonly commands: CommandBus) {}

  @Post('memory/session')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Open/close sessions, record traces, write journal entries' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, MEMORY_SESSION, auth, rid, raw, reply);
  }
}
