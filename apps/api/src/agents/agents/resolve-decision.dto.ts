import { RESOLUTION_REASON_MAX } from '@strata/domain/mcp';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, Text } from '../../platform/http/dto/field-rules';

/** POST /v1/agents/{id}/resolve-decision (REFERENCE §16.5): the §15.10 resolve body, naming the approval. */
export class ResolveDecisionDto {
  @Field(Text({ max: 128, description: 'the approval to resolve (required; alias approval_id)' })) decision_id?: string;
  @Field(Text({ max: 128, description: 'alias of decision_id' })) approval_id?: string;
  @Field(OneOf(['allow', 'deny', 'approve', 'reject'] as const, { required: true, description: '"allow" or "deny" ("approve"/"reject" are aliases)' })) decision!: string;
  @Field(Text({ max: RESOLUTION_REASON_MAX, trim: false })) reason?: string;
  @Field(OneOf(['once', 'session'] as const)) scope?: 'once' | 'session';
}
