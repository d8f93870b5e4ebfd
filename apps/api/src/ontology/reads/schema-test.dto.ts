import { Field } from '../../platform/http/dto/field.decorator';
import { StringList } from '../../platform/http/dto/field-rules';

/** POST /v1/ontology/schemas/{id}/test. */
export class SchemaTestDto {
  @Field(StringList({ required: true, max: 50, example: ['gold clients in Paris'] })) example_queries!: string[];
}
