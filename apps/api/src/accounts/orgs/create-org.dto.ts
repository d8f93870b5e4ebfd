import { Field } from '../../platform/http/dto/field.decorator';
import { Text } from '../../platform/http/dto/field-rules';

/** POST /v1/orgs. */
export class CreateOrgDto {
  @Field(Text({ required: true, max: 200, example: 'Analytical Engines Ltd' })) name!: string;
}
