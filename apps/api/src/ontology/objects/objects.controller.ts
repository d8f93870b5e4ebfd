import { Body as ReqBody, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId, stateOf } from '@strata/auth/request-context.decorator';
import { canonicalNodeTypeName } from '@strata/domain/catalogue';
import { Errors } from '@strata/domain/errors';
import { OBJECT_SORT_KEYS } from '@strata/projections/ontology/ontology-read-model';
import { Body, coerceQuery, readPage, readString } from '@strata/domain/validation';
import { pathUid } from '../../platform/http/path-params';
import { FastRoutes } from '../../platform/http/fast-routes';
import { dtoBody } from '../../platform/http/dto/dto-body.pipe';
import { CreateObjectDto, UpdateObjectDto } from './object.dto';
import { ObjectHandlers } from './object.handlers';
import type { NodeRecord } from '@strata/domain/records';
import { Answers } from '../../platform/http/responses/response-fields';
import { CreateObjectResponse, ObjectPage } from './object.response';
import { NodeVersionRecord } from '../../platform/http/responses/graph-records';

const SORTS = OBJECT_SORT_KEYS.flatMap((k) => [k, `-${k}`]);

@ApiTags('ontology: domain objects')
@Controller()
export class ObjectsController {
  constructor(
    private readonly handlers: ObjectHandlers,
    fast: FastRoutes,
  ) {
    // the hot authored write: on the fast lane, its body checked as the DTO pipe checks it
    fast.takeOver({
      method: 'POST',
      url: '/v1/ontology/objects',
      controller: ObjectsController,
      methodName: 'create',
      status: 201,
      handle: (req, reply, auth) => {
        const body = dtoBody(CreateObjectDto, req.body);
        return this.create(auth, stateOf(req).request_id, body).then((r) => void reply.send(r));
      },
    });
  }

  @Post('v1/ontology/objects')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Create an authored domain object: schema, required-field, type, enum, reference and identity validation (409 duplicate_object)' })
  @Answers(201, 'the created object and the applied proposal recording it', CreateObjectResponse)
  create(@Auth() auth: AuthContext, @RequestId() rid: string, @ReqBody() body: CreateObjectDto): Promise<CreateObjectResponse> {
    return this.handlers.create(auth, rid, body);
  }

  @Patch('v1/ontology/objects/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Update authored fields: schema validation, immutable identity, required reason, expected_version' })
  @Answers(200, 'the domain object', 'NodeRecord')
  update(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('uid') uid: string, @ReqBody() body: UpdateObjectDto): Promise<NodeRecord> {
    return this.handlers.update(auth, rid, pathUid(uid), body);
  }

  @Get('ontology/objects')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Domain objects of a schema: filter by object_type; sort updated_at|created_at|canonical_name (prefix - for descending; -updated_at)' })
  @Answers(200, 'a page of domain objects', ObjectPage)
  list(@Auth() auth: AuthContext, @Query() q: Body): Promise<ObjectPage> {
    const query = coerceQuery(q, ['limit', 'offset']);
    const schema_id = readString(query, 'schema_id', { required: true, max: 128 })!;
    const objectType = readString(query, 'object_type', { max: 100 });
    const sort = readString(query, 'sort') ?? '-updated_at';
    if (!SORTS.includes(sort)) throw Errors.invalidField('sort', `sort must be one of: ${SORTS.join(', ')}`, { allowed: SORTS });
    const { limit, offset } = readPage(query, { limit: 50, max: 1000 });
    return this.handlers.list(auth, { schema_id, object_type: objectType && canonicalNodeTypeName(objectType), sort, limit, offset });
  }

  @Get('ontology/object/:uid')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'One domain object (404 when the uid is not one)' })
  @Answers(200, 'the domain object', 'NodeRecord')
  get(@Auth() auth: AuthContext, @Param('uid') uid: string): Promise<NodeRecord> {
    return this.handlers.get(auth, pathUid(uid));
  }

  @Get('ontology/object/:uid/history')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Version history of a domain object' })
  @Answers(200, 'version records, version ascending', [NodeVersionRecord])
  historyOf(@Auth() auth: AuthContext, @Param('uid') uid: string): Promise<NodeVersionRecord[]> {
    return this.handlers.historyOf(auth, pathUid(uid));
  }
}
