import { PolicyRecord } from '../governance/policy';

/** A published deny policy on the epistemic layer, as the policy specs start from. */
export function policyRecord(over: Partial<PolicyRecord> = {}): PolicyRecord {
  return {
    uid: 'p',
    name: 'p',
    description: null,
    status: 'published',
    effect: 'deny',
    priority: 0,
    match: { layers: ['epistemic'] },
    version: 1,
    status_reason: null,
    created_by: 'u',
    created_at: 0,
    updated_at: 0,
    status_changed_by: 'u',
    status_changed_at: 0,
    mirrored_version: null,
    ...over,
  };
}
