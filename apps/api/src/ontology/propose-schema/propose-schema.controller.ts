import { Body as ReqBody, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { ProposeSchemaDto } from './propose-schema.dto';
import { SchemaProposals } from './schema-proposal.service';
import { Answers } from '../../platform/http/responses/response-fields';
import { ProposeSchemaStartedResponse } from './propose-schema.response';

@ApiTags('ontology: schemas')
@Controller('v1/ontology/propose-schema')
export class ProposeSchemaController {
  constructor(private readonly proposals: SchemaProposals) {}

  @Post()
  @HttpCode(202)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Propose a draft schema from a description, a template_hint and sample documents, as a job (kind ontology_propose)' })
  @Answers(202, 'the draft schema and its job', ProposeSchemaStartedResponse)
  propose(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: ProposeSchemaDto): Promise<ProposeSchemaStartedResponse> {
    return this.proposals.start(auth, rid, body);
  }
}
