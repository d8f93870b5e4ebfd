import { Body as ReqBody, Controller, Delete, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AuthContext } from '@strata/auth/auth-context';
import { ApiKeyOrJwt } from '@strata/auth/route-tags';
import { Auth, RequestId } from '@strata/auth/request-context.decorator';
import { ObjectTypeDto, RelationTypeDto, typeInput } from './type.dto';
import { TypeHandlers } from './type.handlers';
import { Answers } from '../../platform/http/responses/response-fields';
import { ObjectTypeResponse, RelationTypeResponse } from './type.response';

@ApiTags('ontology: types')
@Controller('v1/ontology/schemas/:id')
export class TypesController {
  constructor(private readonly handlers: TypeHandlers) {}

  @Post('object-types')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Add an object type (name unique in the schema, not a built-in node type)' })
  @Answers(201, 'the object type', ObjectTypeResponse)
  addObject(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: ObjectTypeDto): Promise<ObjectTypeResponse> {
    return this.handlers.addObjectType(auth, rid, id, typeInput(body));
  }

  @Patch('object-types/:type_id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "Update an object type; bumps the type's version (and an active schema's)" })
  @Answers(200, 'the object type', ObjectTypeResponse)
  updateObject(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Param('type_id') typeId: string, @ReqBody() body: ObjectTypeDto): Promise<ObjectTypeResponse> {
    return this.handlers.updateObjectType(auth, rid, id, typeId, typeInput(body));
  }

  @Delete('object-types/:type_id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Archive an object type; returns it' })
  @Answers(200, 'the archived object type', ObjectTypeResponse)
  archiveObject(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Param('type_id') typeId: string): Promise<ObjectTypeResponse> {
    return this.handlers.archiveObjectType(auth, rid, id, typeId);
  }

  @Post('relation-types')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Add a relation type between object types of the schema' })
  @Answers(201, 'the relation type', RelationTypeResponse)
  addRelation(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @ReqBody() body: RelationTypeDto): Promise<RelationTypeResponse> {
    return this.handlers.addRelationType(auth, rid, id, typeInput(body));
  }

  @Patch('relation-types/:type_id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: "Update a relation type; bumps the type's version (and an active schema's)" })
  @Answers(200, 'the relation type', RelationTypeResponse)
  updateRelation(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Param('type_id') typeId: string, @ReqBody() body: RelationTypeDto): Promise<RelationTypeResponse> {
    return this.handlers.updateRelationType(auth, rid, id, typeId, typeInput(body));
  }

  @Delete('relation-types/:type_id')
  @ApiKeyOrJwt()
  @ApiOperation({ summary: 'Archive a relation type; returns it' })
  @Answers(200, 'the archived relation type', RelationTypeResponse)
  archiveRelation(@Auth() auth: AuthContext, @RequestId() rid: string, @Param('id') id: string, @Param('type_id') typeId: string): Promise<RelationTypeResponse> {
    return this.handlers.archiveRelationType(auth, rid, id, typeId);
  }
}
