import { Body as ReqBody, Controller, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { assertObjectBody } from '@strata/domain/validation';
import { RelationHandlers } from './relation.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { RelationResponse } from './relation.response';

@ApiTags('ontology: relations')
@Controller('ontology/relation')
export class RelationsController {
  constructor(private readonly handlers: RelationHandlers) {}

  @Post()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Link two domain objects through a relation type: endpoint types, symmetric relations, cardinality; idempotent (200 created:false)' })
  @Answers(201, 'the new relation edge', RelationResponse)
  @Answers(200, 'the existing live relation edge', RelationResponse)
  async create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() raw: unknown, @Res({ passthrough: true }) reply: FastifyReply): Promise<RelationResponse> {
    const out = await this.handlers.create(auth, rid, assertObjectBody(raw));
    reply.status(out.created ? 201 : 200);
    return out;
  }
}
