import { EdgeRecord, NodeRecord } from '../records';
import { MERGED_LABEL_ALIAS_SCORE, assertMergeableTypes, decideMerge } from './entity-merge';

const ctx = { now: 1000, agent_id: null, principal_id: 'u1' };

function node(uid: string, type = 'Person', label = uid): NodeRecord {
  return {
    uid, label, summary: '', node_type: type, layer: 'reality', confidence: 1, salience: 0.5, privacy_level: 'private',
    props: { _type: type }, agent_id: null, created_at: 1, updated_at: 1, tombstone_at: null, tombstone_reason: null, tombstone_by: null, version: 3,
  };
}
function edge(uid: string, from: string, to: string, type = 'RelatedTo', props: Record<string, unknown> = {}): EdgeRecord {
  return {
    uid, from_uid: from, to_uid: to, edge_type: type, layer: 'reality', weight: 0.5, confidence: 1, props: { _type: type, ...props },
    agent_id: null, version: 1, created_at: 1, updated_at: 1, tombstone_at: null, tombstone_reason: null,
  };
}

describe('decideMerge', () => {
  it('retargets edges, drops self-loops and duplicates, and tombstones the merged node without touching keep', () => {
    const keep = node('k');
    const merge = node('m', 'Person', 'Bob Smith');
    const plan = decideMerge(
      {
        keep,
        merge,
        mergeEdges: [edge('e1', 'm', 'x'), edge('e2', 'y', 'm'), edge('e3', 'k', 'm'), edge('e4', 'm', 'z')],
        keepEdges: [edge('e5', 'k', 'z'), edge('e3', 'k', 'm')],
        keepAliases: [],
        mergeAliases: [],
      },
      ctx,
    );
    const byUid = Object.fromEntries(plan.edgeChanges.map((c) => [c.edge.uid, c]));
    expect(byUid.e1.edge).toMatchObject({ from_uid: 'k', to_uid: 'x', version: 2 });
    expect(byUid.e1).toMatchObject({ type: 'EdgeUpdated', reason: 'merge' });
    expect(byUid.e2.edge).toMatchObject({ from_uid: 'y', to_uid: 'k' });
    expect(byUid.e3).toMatchObject({ type: 'EdgeTombstoned', reason: 'merged into k' }); // would be k → k
    expect(byUid.e4).toMatchObject({ type: 'EdgeTombstoned' }); // duplicates live e5 (k → z RelatedTo)
    expect(plan.counts).toMatchObject({ edges_retargeted: 2, edges_dropped: 2 });
    expect(plan.mergedNode).toMatchObject({ uid: 'm', tombstone_reason: 'merged into k', version: 4 });
  });

  it("changes every edge but counts only those 'counted' admits (a scoped caller's view)", () => {
    const input = {
      keep: node('k'),
      merge: node('m'),
      mergeEdges: [edge('seen', 'm', 'x'), edge('hidden', 'm', 'h'), edge('hidden-dup', 'm', 'h2')],
      keepEdges: [edge('k-h2', 'k', 'h2')],
      keepAliases: [],
      mergeAliases: [],
    };
    const all = decideMerge(input, ctx);
    const scoped = decideMerge(input, ctx, (e) => e.to_uid !== 'h' && e.to_uid !== 'h2');
    expect(scoped.edgeChanges).toEqual(all.edgeChanges);
    expect(all.counts).toMatchObject({ edges_retargeted: 2, edges_dropped: 1 });
    expect(scoped.counts).toMatchObject({ edges_retargeted: 1, edges_dropped: 0 });
  });

  it('marks a PossibleDuplicate between the pair as merged and tombstones it', () => {
    const plan = decideMerge(
      { keep: node('k'), merge: node('m'), mergeEdges: [edge('pd', 'm', 'k', 'PossibleDuplicate', { status: 'pending' })], keepEdges: [], keepAliases: [], mergeAliases: [] },
      ctx,
    );
    expect(plan.edgeChanges.map((c) => c.type)).toEqual(['EdgeUpdated', 'EdgeTombstoned']);
    expect(plan.edgeChanges[1].edge).toMatchObject({ props: { status: 'merged' }, version: 3 });
    expect(plan.edgeChanges[1].edge.tombstone_at).toBe(1000);
  });

  it('moves aliases keeping the higher score and adds the merged label at 0.8', () => {
    const plan = decideMerge(
      {
        keep: node('k'),
        merge: node('m', 'Person', 'Bobby'),
        mergeEdges: [],
        keepEdges: [],
        keepAliases: [{ text: 'Rob', norm: 'rob', score: 0.5, created_at: 1 }],
        mergeAliases: [
          { text: 'rob', norm: 'rob', score: 0.9, created_at: 2 },
          { text: 'R. Smith', norm: 'r smith', score: 0.7, created_at: 2 },
        ],
      },
      ctx,
    );
    expect(plan.keepAliasSets).toEqual([
      { text: 'Rob', norm: 'rob', score: 0.9, created_at: 1 },
      { text: 'R. Smith', norm: 'r smith', score: 0.7, created_at: 1000 },
      { text: 'Bobby', norm: 'bobby', score: MERGED_LABEL_ALIAS_SCORE, created_at: 1000 },
    ]);
    expect(plan.mergeAliasRemovals).toEqual(['rob', 'r smith']);
    expect(plan.counts).toMatchObject({ aliases_merged: 2, alias_added: true });
  });

  it('does not lower a higher existing alias for the merged label', () => {
    const plan = decideMerge(
      { keep: node('k'), merge: node('m', 'Person', 'Bobby'), mergeEdges: [], keepEdges: [], keepAliases: [{ text: 'bobby', norm: 'bobby', score: 1, created_at: 1 }], mergeAliases: [] },
      ctx,
    );
    expect(plan.keepAliasSets).toEqual([]);
    expect(plan.counts.alias_added).toBe(false);
  });
});

describe('assertMergeableTypes', () => {
  it('accepts the same type and an Entity merged into a specific reality type', () => {
    expect(() => assertMergeableTypes(node('a', 'Claim'), node('b', 'Claim'))).not.toThrow();
    expect(() => assertMergeableTypes(node('a', 'Person'), node('b', 'Entity'))).not.toThrow();
  });
  it('refuses other mixes with wrong_node_type', () => {
    expect(() => assertMergeableTypes(node('a', 'Entity'), node('b', 'Person'))).toThrow(expect.objectContaining({ code: 'wrong_node_type' }));
    expect(() => assertMergeableTypes(node('a', 'Claim'), node('b', 'Person'))).toThrow(expect.objectContaining({ code: 'wrong_node_type' }));
  });
});
