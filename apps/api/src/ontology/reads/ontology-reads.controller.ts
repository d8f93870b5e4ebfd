import { Body as ReqBody, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt, ReadsOnly } from '@strata/auth/route-tags';
import { Auth } from '@strata/auth/request-context.decorator';
import { Body, assertObjectBody, coerceQuery, readBoolean, readNumber, readString, readStringArray } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { OntologyReads } from './ontology-reads.handlers';
import { SchemaTestDto } from './schema-test.dto';
import { Answers } from '../../platform/http/responses/response-fields';
import { ObjectContextResponse, ObjectSearchResponse, OntologyQueryResponse, SchemaTestResponse } from './ontology-reads.response';

const clampLimit = (v: number | undefined, dflt: number) => Math.min(v ?? dflt, 1000);

@ApiTags('ontology: retrieval')
@Controller()
export class OntologyReadsController {
  constructor(private readonly reads: OntologyReads) {}

  @Post('ontology/objects/search')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Hybrid full-text and semantic search over domain objects (RRF k=60); limit 20' })
  @Answers(200, 'hits, best first', ObjectSearchResponse)
  search(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<ObjectSearchResponse> {
    const body = assertObjectBody(raw);
    return this.reads.searchObjects(auth, {
      query: readString(body, 'query', { required: true, max: 10_000 })!,
      schema_id: readString(body, 'schema_id', { max: 128 }),
      object_types: readStringArray(body, 'object_types', { max: 100 }),
      limit: clampLimit(readNumber(body, 'limit', { integer: true, min: 1 }), 20),
    });
  }

  @Get('ontology/object/:uid/context')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'A domain object with its relations, related objects, 1–3 hops of cognitive context (depth 2) and sources' })
  @Answers(200, 'the object in its context', ObjectContextResponse)
  context(@Auth() auth: AuthContext, @Param('uid') uid: string, @Query() q: Body): Promise<ObjectContextResponse> {
    const query = coerceQuery(q, ['depth']);
    const depth = readNumber(query, 'depth', { integer: true, min: 1, max: 3 }) ?? 2;
    return this.reads.context(auth, pathUid(uid), depth);
  }

  @Post('ontology/query')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Retrieval over a schema: objects, relations, cognitive context, provenance, truncation flags' })
  @Answers(200, 'objects, relations, context and provenance', OntologyQueryResponse)
  query(@Auth() auth: AuthContext, @ReqBody() raw: unknown): Promise<OntologyQueryResponse> {
    const body = assertObjectBody(raw);
    return this.reads.query(auth, {
      query: readString(body, 'query', { required: true, max: 10_000 })!,
      schema_id: readString(body, 'schema_id', { required: true, max: 128 })!,
      object_types: readStringArray(body, 'object_types', { max: 100 }),
      include_cognitive_context: readBoolean(body, 'include_cognitive_context') ?? true,
      include_sources: readBoolean(body, 'include_sources') ?? true,
      depth: Math.min(readNumber(body, 'depth', { integer: true, min: 1 }) ?? 1, 3),
      limit: clampLimit(readNumber(body, 'limit', { integer: true, min: 1 }), 10),
    });
  }

  @Post('v1/ontology/schemas/:id/test')
  @HttpCode(200)
  @ApiKeyOrJwt()
  @ReadsOnly()
  @ApiOperation({ summary: 'Experimental dry run of example queries against the schema objects; never writes' })
  @Answers(200, 'per example query, what the schema objects would answer', SchemaTestResponse)
  test(@Auth() auth: AuthContext, @Param('id') id: string, @ReqBody() body: SchemaTestDto): Promise<SchemaTestResponse> {
    return this.reads.testSchema(auth, id, body.example_queries);
  }
}
