import { AGENT_SCOPES_WITHOUT_GRANTS, AgentScopeWithoutGrants, GOVERNANCE_MODES, GovernanceMode, SETTINGS_LIMITS } from '@strata/domain/governance';
import { Field } from '../../platform/http/dto/field.decorator';
import { Integer, OneOf } from '../../platform/http/dto/field-rules';

/** PATCH /v1/governance/settings: any subset of the four fields. */
export class PatchGovernanceSettingsDto {
  @Field(OneOf(GOVERNANCE_MODES, { description: 'off: no policy evaluated; shadow: evaluated and logged, never enforced; enforce: published policies enforced' }))
  mode?: GovernanceMode;
  @Field(OneOf(AGENT_SCOPES_WITHOUT_GRANTS, { description: 'what an agent with no Project or Space grant reaches' }))
  agent_scope_without_grants?: AgentScopeWithoutGrants;
  @Field(Integer({ min: SETTINGS_LIMITS.approval_deadline_hours[0], max: SETTINGS_LIMITS.approval_deadline_hours[1], description: 'hours before a pending approval is overdue' }))
  approval_deadline_hours?: number;
  @Field(Integer({ min: SETTINGS_LIMITS.approval_ttl_hours[0], max: SETTINGS_LIMITS.approval_ttl_hours[1], description: 'hours an approval may be used after its decision' }))
  approval_ttl_hours?: number;
}
