import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { MEMORY_DISTILL } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /memory/distill: actions and rules in libs/domain/src/cognitive/memory-distill.ts. */
@ApiTags('cognitive: memory')
@Controller()
export class MemoryDistillController {
  constructor(private readonly commands: CommandBus) {}

  @Post('memory/distill')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Create a Summary, Lesson, or provenance-linked candidate Skill' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, MEMORY_DISTILL, auth, rid, raw, reply);
  }
}
