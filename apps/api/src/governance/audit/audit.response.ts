import { ApiProperty } from '@nestjs/swagger';
import { GOVERNANCE_AUDIT_KINDS } from '@strata/domain/audit/governance-audit';
import { POLICY_EFFECTS } from '@strata/domain/governance';
import { Bool, Int, Iso, ListOf, Nested, NullableStr, OneOf, Str, Strings } from '../../platform/http/responses/response-fields';

class AuditPrincipal {
  @OneOf(['user', 'api_key', 'agent', 'system'])
  kind!: string;
  @Str()
  id!: string;
}

class ShadowEffect {
  @Str()
  policy_uid!: string;
  @OneOf(POLICY_EFFECTS)
  effect!: string;
}

class AuditDecision {
  @OneOf(POLICY_EFFECTS, 'the applied outcome')
  effect!: string;
  @Bool('an enforced policy or a tool grant decided it')
  enforced!: boolean;
  @Strings('the enforced policies that matched')
  policy_uids!: string[];
  @ListOf(() => ShadowEffect, 'policies logged, not enforced')
  shadow!: ShadowEffect[];
  @NullableStr()
  reason!: string | null;
}

/** One governance audit record: one event of the log (REFERENCE §13.8) */
export class GovernanceAuditRecord {
  @Str('the event id')
  id!: string;
  @Int('the event’s global position')
  position!: number;
  @OneOf(GOVERNANCE_AUDIT_KINDS)
  kind!: string;
  @Str()
  event_type!: string;
  @Iso()
  occurred_at!: string;
  @Nested(() => AuditPrincipal)
  principal!: AuditPrincipal;
  @NullableStr('the API key used')
  credential_id!: string | null;
  @NullableStr()
  agent_id!: string | null;
  @Str()
  request_id!: string;
  @NullableStr()
  method!: string | null;
  @NullableStr('the route template')
  route!: string | null;
  @NullableStr()
  tool_uid!: string | null;
  @Strings()
  target_uids!: string[];
  @NullableStr('the approval, execution, policy, Space, Project or agent concerned')
  subject_uid!: string | null;
  @NullableStr('the status the subject reached, where it has one')
  status!: string | null;
  @ApiProperty({ type: () => AuditDecision, nullable: true, description: 'policy decisions only' })
  decision!: AuditDecision | null;
}

export class GovernanceAuditPage {
  @ListOf(() => GovernanceAuditRecord)
  items!: GovernanceAuditRecord[];
  @Bool()
  has_more!: boolean;
  @Int()
  limit!: number;
  @NullableStr('opaque, bound to the filters and order; null on the last page')
  next_cursor!: string | null;
}
