import { PATCHABLE_SEMANTIC_MODES, SemanticValidationMode } from '@strata/domain/ontology';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, Text } from '../../platform/http/dto/field-rules';

/** POST /v1/ontology/schemas: a draft schema. */
export class CreateSchemaDto {
  @Field(Text({ required: true, max: 200, example: 'Client services' })) name!: string;
  @Field(Text({ max: 10_000 })) description?: string;
}

/** PATCH /v1/ontology/schemas/{id}: metadata of a draft or active schema. */
export class UpdateSchemaDto {
  @Field(Text({ max: 200, blank: 'missing' })) name?: string;
  @Field(Text({ max: 10_000 })) description?: string;
  @Field(OneOf(PATCHABLE_SEMANTIC_MODES)) semantic_validation_mode?: SemanticValidationMode;
}
