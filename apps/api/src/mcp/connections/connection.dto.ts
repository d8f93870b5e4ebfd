import type { ConnectionAuthInput, McpApprovalMode } from '@strata/domain/mcp';
import { APPROVAL_MODES, NAME_MAX } from '@strata/domain/mcp';
import { Field } from '../../platform/http/dto/field.decorator';
import { Integer, OneOf, Text } from '../../platform/http/dto/field-rules';
import { AcknowledgeDrift, Immutable, McpAuth, McpUrl, ToolApprovals } from '../mcp-fields';

const ApprovalTimeout = Integer({ min: 60, max: 604_800, description: 'seconds an approval waits (default 3600)' });
const CallTimeout = Integer({ min: 1, max: 300, description: 'seconds a tools/call may take (default 60)' });

/** POST /v1/mcp/connections */
export class CreateConnectionDto {
  @Field(Text({ required: true, max: NAME_MAX, description: 'unique among the organization’s connections that are not disconnected' })) name!: string;
  @Field(McpUrl) url!: string;
  @Field(McpAuth(true)) auth!: ConnectionAuthInput;
  @Field(OneOf(APPROVAL_MODES, { description: 'when a call of one of its tools needs approval (default always)' })) approval_mode?: McpApprovalMode;
  @Field(ToolApprovals) tool_approvals?: Record<string, 'always' | 'never'>;
  @Field(ApprovalTimeout) approval_timeout_s?: number;
  @Field(CallTimeout) call_timeout_s?: number;
  @Field(Text({ max: 2048, description: 'OAuth: where the callback sends the browser (a path, or a URL on STRATA_PUBLIC_URL’s origin)' })) return_url?: string;
}

/** PATCH /v1/mcp/connections/{id} */
export class PatchConnectionDto {
  @Field(Text({ max: NAME_MAX, blank: 'missing' })) name?: string;
  @Field(OneOf(APPROVAL_MODES)) approval_mode?: McpApprovalMode;
  @Field(ToolApprovals) tool_approvals?: Record<string, 'always' | 'never'>;
  @Field(ApprovalTimeout) approval_timeout_s?: number;
  @Field(CallTimeout) call_timeout_s?: number;
  @Field(AcknowledgeDrift) acknowledge_drift?: string[] | 'all';
  @Field(Immutable('string')) url?: never;
  @Field(Immutable('object')) auth?: never;
  @Field(Immutable('string')) slug?: never;
}

/** POST /v1/mcp/connections/{id}/reauthorize */
export class ReauthorizeConnectionDto {
  @Field(McpAuth(false)) auth?: ConnectionAuthInput;
  @Field(Text({ max: 2048 })) return_url?: string;
}
