import { decideCreateNode } from './node-decider';
import { decideCreateEdge, decideRestoreEdge, decideRetargetEdge, decideTombstoneEdge, decideUpdateEdge, readEdgeInput } from './edge-decider';
import { domainErrorOf as fails } from '../testing/domain-error-of';

const ctx = { now: 10, agent_id: null, principal_id: 'p' };
const goal = decideCreateNode({ label: 'g', node_type: 'Goal' }, 'g', ctx);
const claim = decideCreateNode({ label: 'c', node_type: 'Claim' }, 'c', ctx);


describe('edges', () => {
  it('take their layer from the from-node and default weight, confidence and props', () => {
    const input = readEdgeInput({ edge_type: 'relevant_to' });
    const e = decideCreateEdge(input, goal, claim, 'e1', ctx);
    expect(e).toMatchObject({ uid: 'e1', edge_type: 'RelevantTo', layer: 'intent', weight: 0.5, confidence: 1, version: 1, props: { _type: 'RelevantTo', relevance_score: null } });
  });

  it('resolve the type from props._type and refuse contradictions and unknown fields', () => {
    expect(readEdgeInput({ props: { _type: 'HAS_PREMISE', order: 2 } })).toMatchObject({ edge_type: 'HasPremise', props: { order: 2, role: null } });
    expect(fails(() => readEdgeInput({ edge_type: 'Supports', props: { _type: 'Refutes' } })).code).toBe('invalid_props');
    expect(fails(() => readEdgeInput({ edge_type: 'Supports', props: { x: 1 } })).code).toBe('unknown_props_fields');
    expect(fails(() => readEdgeInput({})).code).toBe('missing_field');
    expect(fails(() => readEdgeInput({ edge_type: 'Supports', weight: -1 })).code).toBe('invalid_field');
  });

  it('update weight and props but never type or endpoints', () => {
    const e = decideCreateEdge(readEdgeInput({ edge_type: 'Supports' }), claim, claim, 'e', ctx);
    const u = decideUpdateEdge(e, { weight: 0.9, props: { strength: 0.4 } }, { ...ctx, now: 11 });
    expect(u).toMatchObject({ version: 2, weight: 0.9, updated_at: 11, props: { strength: 0.4 } });
    expect(fails(() => decideUpdateEdge(e, { from_uid: 'other' }, ctx)).code).toBe('immutable_field');
    expect(fails(() => decideUpdateEdge(e, { edge_type: 'Refutes' }, ctx)).code).toBe('immutable_field');
    expect(decideUpdateEdge(e, { edge_type: 'SUPPORTS' }, ctx).version).toBe(2);
    expect(fails(() => decideUpdateEdge(e, { expected_version: 3 }, ctx)).code).toBe('version_conflict');
  });

  it('tombstone, restore and retarget are versioned; repeats are no-ops', () => {
    const e = decideCreateEdge(readEdgeInput({ edge_type: 'Supports' }), claim, goal, 'e', ctx);
    const t = decideTombstoneEdge(e, 'x', ctx)!;
    expect(t).toMatchObject({ version: 2, tombstone_reason: 'x' });
    expect(decideTombstoneEdge(t, 'y', ctx)).toBeNull();
    expect(fails(() => decideUpdateEdge(t, { weight: 0.1 }, ctx)).code).toBe('tombstoned');
    const r = decideRestoreEdge(t, ctx)!;
    expect(r).toMatchObject({ version: 3, tombstone_at: null });
    expect(decideRestoreEdge(r, ctx)).toBeNull();
    expect(decideRetargetEdge(r, 'n', goal.uid, ctx)).toMatchObject({ from_uid: 'n', to_uid: 'g', version: 4, layer: 'epistemic' });
  });
});
