import { TEMPLATE_HINTS, TemplateHint } from '@strata/domain/ontology';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, StringList, Text, UidList } from '../../platform/http/dto/field-rules';
import { JsonArray } from '../ontology-fields';

/** POST /v1/ontology/propose-schema: a description or source material (or both). */
export class ProposeSchemaDto {
  @Field(Text({ max: 10_000, example: 'Our consulting clients, their engagements and contacts' })) description?: string;
  @Field(OneOf(TEMPLATE_HINTS)) template_hint?: TemplateHint;
  @Field(UidList({ max: 100, description: 'Documents or Chunks to read for named entities' })) source_uids?: string[];
  @Field(JsonArray({ max: 20, description: '[{content, title?}]' })) source_documents?: unknown[];
  @Field(Text({ max: 2000 })) target_use_case?: string;
  @Field(JsonArray({ max: 100 })) example_objects?: unknown[];
  @Field(StringList({ max: 50 })) example_queries?: string[];
  @Field(StringList({ max: 50 })) desired_workflows?: string[];
  @Field(Text({ max: 128 })) parent_schema_id?: string;
}
