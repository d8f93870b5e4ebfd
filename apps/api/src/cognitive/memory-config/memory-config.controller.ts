import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { AccessByAction, ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { MEMORY_CONFIG } from '@strata/domain/cognitive';
import { cognitiveCall } from '../shared/cognitive-call';

/** POST /memory/config: actions and rules in libs/domain/src/cognitive/memory-config.ts. */
@ApiTags('cognitive: memory')
@Controller()
export class MemoryConfigController {
  constructor(private readonly commands: CommandBus) {}

  @Post('memory/config')
  @ApiKeyOrJwt()
  @AccessByAction()
  @ApiOperation({ summary: 'Set/get preferences (upsert by key) and memory policies' })
  post(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply) {
    return cognitiveCall(this.commands, MEMORY_CONFIG, auth, rid, raw, reply);
  }
}
