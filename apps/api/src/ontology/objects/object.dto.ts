import { Field } from '../../platform/http/dto/field.decorator';
import { Integer, StringList, Text } from '../../platform/http/dto/field-rules';
import { Bool, JsonObject, Unit } from '../ontology-fields';

/** POST /v1/ontology/objects: an authored domain object, validated against its object type. */
export class CreateObjectDto {
  @Field(Text({ required: true, max: 128 })) schema_id!: string;
  @Field(Text({ required: true, max: 100, example: 'Client' })) object_type!: string;
  @Field(Text({ required: true, max: 1000, example: 'Acme Corp' })) canonical_name!: string;
  @Field(JsonObject({ description: "values of the type's fields" })) fields?: Record<string, unknown>;
  @Field(StringList({ max: 100 })) aliases?: string[];
  @Field(JsonObject({ description: 'identity field values (default: taken from fields)' })) identity?: Record<string, unknown>;
  @Field(Unit()) confidence?: number;
  @Field(Bool({ description: 'create even when an object with the same identity exists (false)' })) allow_duplicate?: boolean;
  @Field(Text({ max: 128 })) agent_id?: string;
  @Field(Text({ max: 128, description: 'the Space the object is created in (REFERENCE §13.1); required of a key that reaches several Spaces' })) space_uid?: string;
}

/** PATCH /v1/ontology/objects/{uid}: authored fields; identity is immutable, the reason and version are required. */
export class UpdateObjectDto {
  @Field(Text({ max: 1000, blank: 'missing' })) canonical_name?: string;
  @Field(JsonObject({ description: 'fields to change (shallow merge; null removes a value)' })) fields?: Record<string, unknown>;
  @Field(StringList({ max: 100 })) aliases?: string[];
  @Field(Unit()) confidence?: number;
  @Field(Text({ required: true, max: 1000, description: 'why: recorded in the version history' })) reason!: string;
  @Field(Integer({ required: true, min: 1, description: 'the version this change was decided on' })) expected_version!: number;
}
