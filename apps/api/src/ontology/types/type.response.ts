import { ApiProperty } from '@nestjs/swagger';
import { CARDINALITIES, FIELD_TYPES, REVIEW_POLICIES } from '@strata/domain/ontology';
import type { Cardinality, FieldType, ReviewPolicy, TypeStatus } from '@strata/domain/ontology';
import { Bool, Int, Iso, Json, ListOf, NullableStr, Num, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

const TYPE_STATUSES = ['active', 'deprecated', 'archived'] as const;
/** any JSON value: a field's default, a type's extraction hints */
const ANY_JSON = { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'object' }, { type: 'array' }], nullable: true };

/** One field of an object or relation type (REFERENCE §11 FieldDefinition); absent keys were not given */
export class FieldDefinitionResponse {
  @Str()
  name!: string;
  @OneOf(FIELD_TYPES)
  type!: FieldType;
  @ApiProperty({ type: Boolean, required: false })
  required?: boolean;
  @ApiProperty({ type: String, required: false })
  description?: string;
  @ApiProperty({ ...ANY_JSON, required: false, description: 'any JSON value' } as never)
  default?: unknown;
  @ApiProperty({ type: [String], required: false, description: 'the values of an enum field' })
  enum?: string[];
  @ApiProperty({ type: String, required: false, description: 'object type a reference field points to' })
  reference_object_type?: string;
  @ApiProperty({ enum: [...FIELD_TYPES], required: false, description: 'item type of an array field' })
  array_item_type?: FieldType;
  @ApiProperty({ type: String, required: false })
  extraction_hint?: string;
}

/** Fields common to object and relation types */
abstract class TypeRecordFields {
  @Str()
  id!: string;
  @Str()
  schema_id!: string;
  @Str()
  org_id!: string;
  @Str('unique within the schema')
  name!: string;
  @NullableStr()
  display_name!: string | null;
  @NullableStr()
  description!: string | null;
  @ListOf(() => FieldDefinitionResponse, 'given as `fields` on input')
  fields_json!: FieldDefinitionResponse[];
  @ApiProperty({ ...ANY_JSON, description: 'as given (categories, risk_level…); null when not set' } as never)
  extraction_hints!: unknown;
  @OneOf(REVIEW_POLICIES)
  review_policy!: ReviewPolicy;
  @Json('the built-in type a reviewer matched (or a candidate set through PATCH); null when none', true)
  semantic_match!: Record<string, unknown> | null;
  @Json('binding to an external SQL source, stored as given; null when none', true)
  backing!: Record<string, unknown> | null;
  @OneOf(TYPE_STATUSES)
  status!: TypeStatus;
  @Int('bumped by each change')
  version!: number;
  @Iso()
  created_at!: string;
  @Iso()
  updated_at!: string;
}

/** An object type (REFERENCE §11) */
export class ObjectTypeResponse extends TypeRecordFields {
  @Strings('names of defined fields')
  required_fields!: string[];
  @Strings('names of defined fields; what makes two objects the same')
  identity_fields!: string[];
  @Strings()
  aliases!: string[];
  @ApiProperty({ type: 'array', items: {}, description: 'given as `examples` on input' } as never)
  examples_json!: unknown[];
  @Num('0.8 unless set')
  default_confidence!: number;
}

/** A relation type (REFERENCE §11) */
export class RelationTypeResponse extends TypeRecordFields {
  @Str('object type name of the schema')
  source_type!: string;
  @Str('object type name of the schema')
  target_type!: string;
  @OneOf(CARDINALITIES, undefined, true)
  cardinality!: Cardinality | null;
  @Bool()
  symmetric!: boolean;
  @Bool()
  transitive!: boolean;
  @NullableStr()
  inverse_relation_type!: string | null;
}
