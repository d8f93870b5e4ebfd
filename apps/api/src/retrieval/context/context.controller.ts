import { Body as ReqBody, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { ContextResponse } from './context.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { readContextRequest } from '@strata/domain/retrieval';
import { assertObjectBody } from '@strata/domain/validation';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { ContextRetrievalService } from './context-retrieval.service';

/** `POST /retrieve/context` (REFERENCE §9.5). Read-only, within the caller's read scope. */
@ApiTags('retrieval: context')
@Controller()
export class ContextController {
  constructor(
    private readonly context: ContextRetrievalService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Post('retrieve/context')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({
    summary:
      'Context for a query: ranked graph nodes (hybrid or text) with provenance (source documents, anchored source chunks with pages), belief, supersession and validity, nodes reached from them, the live edges among them, Article nodes and raw Chunks',
  })
  @Answers(200, 'articles, chunks and the annotated graph', ContextResponse)
  async retrieveContext(@Auth() auth: AuthContext, @ReqBody() raw: unknown) {
    const req = readContextRequest(assertObjectBody(raw));
    return this.context.run(await this.scopes.of(auth), req);
  }
}
