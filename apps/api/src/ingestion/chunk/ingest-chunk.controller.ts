import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { IngestChunkAnswer } from './ingest-chunk.response';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, assertCanWrite } from '@strata/auth/request-context.decorator';
import { assertObjectBody } from '@strata/domain/validation';
import { assertMayIngest } from '../ingestion-scope';
import { commandContext } from '@strata/platform/unit-of-work/command-context.factory';
import { IngestChunkHandler } from './ingest-chunk.handler';

@ApiTags('ingestion')
@Controller('ingest')
export class IngestChunkController {
  constructor(private readonly handler: IngestChunkHandler) {}

  @Post('chunk')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Extract one chunk into the graph, synchronously (201; 200 with deduplicated:true for identical content; 502 when every pass fails)' })
  @Answers(201, 'extracted', IngestChunkAnswer)
  @Answers(200, 'identical content: the existing chunk, deduplicated:true', IngestChunkAnswer)
  async ingest(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) res: FastifyReply) {
    assertCanWrite(auth);
    assertMayIngest(auth);
    const body = assertObjectBody(raw);
    const out = await this.handler.ingest(commandContext(auth, rid, body), body);
    res.status(out.status);
    return out.body;
  }
}
