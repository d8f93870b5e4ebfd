import { RESOLUTION_REASON_MAX } from '@strata/domain/mcp';
import { Field } from '../../platform/http/dto/field.decorator';
import { OneOf, Text } from '../../platform/http/dto/field-rules';

export const DECISIONS = ['allow', 'deny', 'approve', 'reject'] as const;

/** POST /v1/mcp/approvals/{id}/resolve */
export class ResolveApprovalDto {
  @Field(OneOf(DECISIONS, { required: true, description: '"allow" or "deny" ("approve"/"reject" are aliases)' })) decision!: (typeof DECISIONS)[number];
  @Field(Text({ max: RESOLUTION_REASON_MAX, trim: false, description: 'why, kept on the approval' })) reason?: string;
  @Field(OneOf(['once', 'session'] as const, { description: '"session": later calls of the same tool in the session skip mode-based approval (default once)' })) scope?: 'once' | 'session';
}
