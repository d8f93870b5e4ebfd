import { REVIEW_POLICIES, CARDINALITIES, ObjectTypeInput, RelationTypeInput } from '@strata/domain/ontology';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, StringList, Text } from '../../platform/http/dto/field-rules';
import { AnyJson, Bool, JsonArray, JsonObject, Unit } from '../ontology-fields';

/** Fields common to object and relation types; `fields` and `examples` are stored as `fields_json` and `examples_json`. */
class TypeDto {
  @Field(Text({ max: 100, example: 'Client' })) name?: string;
  @Field(Text({ max: 200 })) display_name?: string;
  @Field(Text({ max: 10_000 })) description?: string;
  @Field(JsonArray({ max: 500, description: 'FieldDefinitions: {name, type, required?, description?, default?, enum?, reference_object_type?, array_item_type?, extraction_hint?}' }))
  fields?: unknown[];
  @Field(AnyJson({ description: 'what extraction looks for (entity categories, keywords)' })) extraction_hints?: unknown;
  @Field(OneOf(REVIEW_POLICIES)) review_policy?: string;
  @Field(JsonObject()) semantic_match?: Record<string, unknown>;
  @Field(JsonObject({ description: 'binding to an external SQL source; stored as given, checked for shape' })) backing?: Record<string, unknown>;
  @Field(OneOf(['active', 'deprecated'] as const)) status?: string;
}

export class ObjectTypeDto extends TypeDto {
  @Field(StringList({ max: 500 })) required_fields?: string[];
  @Field(StringList({ max: 50 })) identity_fields?: string[];
  @Field(StringList({ max: 100 })) aliases?: string[];
  @Field(JsonArray({ max: 100 })) examples?: unknown[];
  @Field(Unit({ description: 'confidence at or above which a low_confidence review policy applies extractions (0.8)' })) default_confidence?: number;
}

export class RelationTypeDto extends TypeDto {
  @Field(Text({ max: 100 })) source_type?: string;
  @Field(Text({ max: 100 })) target_type?: string;
  @Field(OneOf(CARDINALITIES)) cardinality?: string;
  @Field(Bool()) symmetric?: boolean;
  @Field(Bool()) transitive?: boolean;
  @Field(Text({ max: 100 })) inverse_relation_type?: string;
}

/** The DTO as the domain's input (only the fields sent). */
export function typeInput<T extends ObjectTypeInput | RelationTypeInput>(dto: object): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(dto)) if (v !== undefined) out[k] = v;
  return out as T;
}
