import { ApiProperty } from '@nestjs/swagger';
import { Iso, Json, ListOf, NullableIso, NullableStr, OneOf, Str } from './response-fields';

class ApprovalReason {
  @OneOf(['connection_mode', 'per_tool', 'drift', 'policy'])
  source!: string;
  @ApiProperty({ type: String, required: false, description: 'source policy: the policy' })
  policy_uid?: string;
}

class ResolvedBy {
  @OneOf(['user', 'api_key', 'agent', 'system'])
  kind!: string;
  @Str()
  id!: string;
}

/**
 * A tool-call approval (REFERENCE §15.10): what `/v1/mcp/approvals` and an agent's
 * `/work` and `resolve-decision` answer. `id` is also its Approval node's uid.
 */
export class ToolApprovalRecord {
  @Str()
  id!: string;
  @OneOf(['pending', 'approved', 'denied', 'expired', 'cancelled'])
  status!: string;
  @OneOf(['mcp_tool', 'builtin_tool'])
  kind!: string;
  @NullableStr('null for a built-in tool')
  connection_id!: string | null;
  @NullableStr()
  connection_name!: string | null;
  @Str()
  tool_name!: string;
  @Str('the name the model called')
  model_name!: string;
  @NullableStr('the tool’s Affordance; null for a built-in tool')
  affordance_uid!: string | null;
  @Json('the call’s arguments')
  arguments!: Record<string, unknown>;
  @ListOf(() => ApprovalReason)
  reasons!: ApprovalReason[];
  @Str()
  agent_id!: string;
  @Str()
  agent_name!: string;
  @Str()
  session_id!: string;
  @Str()
  run_id!: string;
  @Str()
  tool_call_id!: string;
  @Iso()
  requested_at!: string;
  @Iso()
  expires_at!: string;
  @NullableIso()
  resolved_at!: string | null;
  @ApiProperty({ type: () => ResolvedBy, nullable: true })
  resolved_by!: ResolvedBy | null;
  @NullableStr()
  resolution_reason!: string | null;
  @OneOf(['once', 'session'], 'session: later calls of the tool in the session skip mode-based approval')
  scope!: string;
}
