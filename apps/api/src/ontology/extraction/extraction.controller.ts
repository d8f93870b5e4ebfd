import { Body as ReqBody, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { assertObjectBody } from '@strata/domain/validation';
import { readExtractRequest } from './extract.dto';
import { OntologyExtraction } from './ontology-extraction.service';
import { Answers } from '../../platform/http/responses/response-fields';
import { ExtractStartedResponse } from './extract.response';

@ApiTags('ontology: extraction')
@Controller('ontology/extract')
export class ExtractionController {
  constructor(private readonly extraction: OntologyExtraction) {}

  @Post()
  @HttpCode(202)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Extract domain objects from Documents or Chunks as a job (kind ontology_extract); mode respect_policies|propose_only|force_auto_apply' })
  @Answers(202, 'the extraction job', ExtractStartedResponse)
  extract(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<ExtractStartedResponse> {
    return this.extraction.start(auth, readExtractRequest(assertObjectBody(raw)));
  }
}
