/**
 * A live epistemic Claim `n1`, version 1, as stored node documents are (no summary), the shape
 * the graph store and projection specs start from.
 */
export function claimRecord<T extends object>(over: T = {} as T) {
  return {
    uid: 'n1',
    label: 'First',
    summary: null,
    node_type: 'Claim',
    layer: 'epistemic',
    confidence: 0.7,
    salience: 0.5,
    privacy_level: 'private',
    props: { _type: 'Claim', content: 'x' },
    agent_id: null,
    created_at: 1_700_000_000,
    updated_at: 1_700_000_000,
    tombstone_at: null,
    tombstone_reason: null,
    tombstone_by: null,
    version: 1,
    ...over,
  };
}
