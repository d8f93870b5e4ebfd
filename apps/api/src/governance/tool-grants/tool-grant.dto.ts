import { Field } from '../../platform/http/dto/field.decorator';
import { IsoDateTime, Text } from '../../platform/http/dto/field-rules';

/** PUT /v1/agents/{id}/tool-grants/{affordance_uid} */
export class PutToolGrantDto {
  /** Unix seconds once parsed; must lie in the future (checked against the clock by the handler) */
  @Field(IsoDateTime({ description: 'ISO 8601 date-time in the future; the grant ends then' })) expires_at?: number;
  @Field(Text({ max: 500, description: 'why the agent may use the tool' })) note?: string;
}
