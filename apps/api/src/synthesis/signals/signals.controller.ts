import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Answers } from '../../platform/http/responses/response-fields';
import { SignalsResponse } from './signals.response';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { computeSignals, readSignalsQuery } from '@strata/domain/synthesis';
import { Body } from '@strata/domain/validation';
import { ReadScopeService } from '@strata/platform/scope/read-scope';
import { pathUid } from '../../platform/http/path-params';
import { ProjectCorpusService } from './project-corpus.service';

/** `GET /synthesis/signals/{project_uid}` (REFERENCE §10): structural signals, no model call. */
@ApiTags('synthesis')
@Controller('synthesis')
export class SignalsController {
  constructor(
    private readonly corpus: ProjectCorpusService,
    private readonly scopes: ReadScopeService,
  ) {}

  @Get('signals/:project_uid')
  @ApiKeyOrJwt()
  @ApiOperation({
    summary:
      "Structural signals of a Project's admitted sources, without a language model: documents, entity bridges, claim hubs (ranked and clustered), theory support gaps, concept clusters, analogy candidates, dialectical pairs (?signals= subset, ?target_types=)",
  })
  @Answers(200, 'the requested signals', SignalsResponse)
  async signals(@Auth() auth: AuthContext, @Param('project_uid') raw: string, @Query() query: Body): Promise<SignalsResponse> {
    const uid = pathUid(raw, 'project_uid');
    const scope = await this.scopes.of(auth);
    // the Project is checked first (REFERENCE §12.1), then the query
    await this.corpus.project(scope, uid);
    const q = readSignalsQuery(query);
    return computeSignals(await this.corpus.load(scope.org, uid), q);
  }
}
