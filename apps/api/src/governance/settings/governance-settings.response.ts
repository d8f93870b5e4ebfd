import { AGENT_SCOPES_WITHOUT_GRANTS, GOVERNANCE_MODES } from '@strata/domain/governance';
import { Int, Nested, NullableIso, NullableStr, OneOf } from '../../platform/http/responses/response-fields';
import { GovernanceSyncStatus } from '../sync/governance-sync.response';

class PolicyCounts {
  @Int()
  draft!: number;
  @Int()
  shadow!: number;
  @Int()
  published!: number;
  @Int()
  rejected!: number;
}

/** The organization's governance settings (REFERENCE §13.5) */
export class GovernanceSettingsResponse {
  @OneOf(GOVERNANCE_MODES)
  mode!: string;
  @OneOf(AGENT_SCOPES_WITHOUT_GRANTS, 'what an agent with no Project or Space grant may reach')
  agent_scope_without_grants!: string;
  @Int('1-720')
  approval_deadline_hours!: number;
  @Int('1-168')
  approval_ttl_hours!: number;
  @Nested(() => PolicyCounts, 'policies by status')
  policy_counts!: PolicyCounts;
  @Nested(() => GovernanceSyncStatus)
  sync!: GovernanceSyncStatus;
  @NullableIso('the last change; null before any')
  updated_at!: string;
  @NullableStr('principal id; null before any change')
  updated_by!: string | null;
}
