import { Body as ReqBody, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { SCHEMA_STATUSES } from '@strata/domain/ontology';
import { Body, coerceQuery, readEnum, readPage } from '@strata/domain/validation';
import { CreateSchemaDto, UpdateSchemaDto } from './schema.dto';
import { SchemaHandlers } from './schema.handlers';
import { SemanticGuidance } from './semantic-guidance.handler';
import { Answers } from '../../platform/http/responses/response-fields';
import { DuplicatesAuditResponse, OntologySchemaDetailResponse, OntologySchemaPage, OntologySchemaResponse, SemanticGuidanceResponse } from './schema.response';

@ApiTags('ontology: schemas')
@Controller('v1/ontology/schemas')
export class SchemasController {
  constructor(
    private readonly handlers: SchemaHandlers,
    private readonly guidance: SemanticGuidance,
  ) {}

  @Get()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Schemas of the workspace, most recently updated first; filter by status' })
  @Answers(200, 'a page of schema records, updated_at descending', OntologySchemaPage)
  list(@Auth() auth: AuthContext, @Query() q: Body): OntologySchemaPage {
    const query = coerceQuery(q, ['limit', 'offset']);
    const status = readEnum(query, 'status', SCHEMA_STATUSES);
    const { limit, offset } = readPage(query, { limit: 50, max: 1000 });
    return this.handlers.list(auth, status, limit, offset);
  }

  @Post()
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Create a draft schema' })
  @Answers(201, 'the draft schema', OntologySchemaResponse)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateSchemaDto): Promise<OntologySchemaResponse> {
    return this.handlers.create(auth, rid, body);
  }

  @Get(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'One schema with its object and relation types' })
  @Answers(200, 'the schema with its object and relation types', OntologySchemaDetailResponse)
  get(@Auth() auth: AuthContext, @Param('id') id: string): OntologySchemaDetailResponse {
    return this.handlers.get(auth, id);
  }

  @Patch(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Edit a draft or active schema (name, description, semantic_validation_mode off|advisory)' })
  @Answers(200, 'the schema', OntologySchemaResponse)
  update(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: UpdateSchemaDto): Promise<OntologySchemaResponse> {
    return this.handlers.update(auth, rid, id, body);
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Activate (needs an object type); the most recently activated active schema is the workspace default' })
  @Answers(200, 'the schema', OntologySchemaResponse)
  activate(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string): Promise<OntologySchemaResponse> {
    return this.handlers.move(auth, rid, id, 'activate');
  }

  @Post(':id/deprecate')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Deprecate an active schema' })
  @Answers(200, 'the schema', OntologySchemaResponse)
  deprecate(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string): Promise<OntologySchemaResponse> {
    return this.handlers.move(auth, rid, id, 'deprecate');
  }

  @Post(':id/duplicates/audit')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Dry-run audit of exact identity collisions among the live objects; never writes' })
  @Answers(200, 'identity collisions among live objects', DuplicatesAuditResponse)
  duplicatesAudit(@Auth() auth: AuthContext, @Param('id') id: string): Promise<DuplicatesAuditResponse> {
    return this.handlers.duplicatesAudit(auth, id);
  }

  @Post(':id/semantic-guidance/analyze')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Candidate built-in types for each current type (review required; nothing is applied)' })
  @Answers(200, 'a candidate built-in type per current type; nothing applied', SemanticGuidanceResponse)
  analyze(@Auth() auth: AuthContext, @Param('id') id: string): SemanticGuidanceResponse {
    return this.guidance.analyze(auth, id);
  }

  @Delete(':id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Archive (soft-delete) a schema' })
  @Answers(200, 'the archived schema', OntologySchemaResponse)
  archive(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string): Promise<OntologySchemaResponse> {
    return this.handlers.move(auth, rid, id, 'archive');
  }
}
