import { cheapestPaths, compareSteps } from './cheapest-paths';
import { InMemoryTraversalGraph } from './in-memory-traversal-graph';
import { edgeCost } from './path-cost';
import { EdgeFollowRules } from './traversal-graph';

const all = (over: Partial<{ max_depth: number; max_nodes: number; rules: EdgeFollowRules; direction: 'outgoing' | 'incoming' | 'both' }> = {}) => ({
  max_depth: 3,
  max_nodes: 500,
  rules: {},
  direction: 'both' as const,
  ...over,
});

describe('cheapestPaths', () => {
  it('selects a cheaper two-hop path over a weak direct edge when max_depth allows it', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 't', 0.1).edge('e2', 's', 'm', 0.9).edge('e3', 'm', 't', 0.9);
    const { reached } = await cheapestPaths(g, ['s'], all({ max_depth: 2 }));
    const t = reached.get('t')!;
    expect(t.parent).toBe('m');
    expect(t.hops).toBe(2);
    expect(t.first_hop).toBe(1);
    expect(t.cost).toBeCloseTo(2 * -Math.log(0.9), 12);
  });

  it('keeps the direct edge when the cheaper path needs more hops than max_depth', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 't', 0.1).edge('e2', 's', 'm', 0.9).edge('e3', 'm', 't', 0.9);
    const { reached } = await cheapestPaths(g, ['s'], all({ max_depth: 1 }));
    expect(reached.get('t')!.parent).toBe('s');
    expect(reached.get('t')!.cost).toBeCloseTo(edgeCost(0.1), 12);
  });

  it('breaks cost ties by fewer hops, then by the smaller parent uid', async () => {
    // s→t at weight 0.25 costs the same as s→a→t at 0.5·0.5
    const g = new InMemoryTraversalGraph().edge('e1', 's', 't', 0.25).edge('e2', 's', 'a', 0.5).edge('e3', 'a', 't', 0.5);
    expect((await cheapestPaths(g, ['s'], all())).reached.get('t')!.parent).toBe('s');
    const h = new InMemoryTraversalGraph().edge('x1', 's', 'b', 0.5).edge('x2', 's', 'a', 0.5).edge('x3', 'b', 't', 0.5).edge('x4', 'a', 't', 0.5);
    expect((await cheapestPaths(h, ['s'], all())).reached.get('t')!.parent).toBe('a');
  });

  it('multiplies edge confidences along the selected path', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a', 0.9, { confidence: 0.5 }).edge('e2', 'a', 'b', 0.9, { confidence: 0.4 });
    expect((await cheapestPaths(g, ['s'], all())).reached.get('b')!.confidence).toBeCloseTo(0.2, 12);
  });

  it('follows only the requested direction and labels hops taken against the edge as incoming', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'out', 0.5).edge('e2', 'in', 's', 0.5);
    const out = await cheapestPaths(g, ['s'], all({ direction: 'outgoing' }));
    expect([...out.reached.keys()].sort()).toEqual(['out', 's']);
    const inc = await cheapestPaths(g, ['s'], all({ direction: 'incoming' }));
    expect([...inc.reached.keys()].sort()).toEqual(['in', 's']);
    expect(inc.reached.get('in')!.direction).toBe('incoming');
    const both = await cheapestPaths(g, ['s'], all());
    expect(both.reached.get('out')!.direction).toBe('outgoing');
  });

  it('never enters or passes through a tombstoned node', async () => {
    const g = new InMemoryTraversalGraph().node('dead', { tombstoned: true }).edge('e1', 's', 'dead', 0.9).edge('e2', 'dead', 'beyond', 0.9);
    const { reached } = await cheapestPaths(g, ['s'], all());
    expect([...reached.keys()]).toEqual(['s']);
  });

  it('applies edge_types, then exclude_edge_types, then the weight threshold', async () => {
    const g = new InMemoryTraversalGraph()
      .edge('e1', 's', 'a', 0.9, { type: 'Supports' })
      .edge('e2', 's', 'b', 0.9, { type: 'Refutes' })
      .edge('e3', 's', 'c', 0.2, { type: 'Supports' })
      .edge('e4', 's', 'd', 0.9, { type: 'RelatedTo' });
    const rules: EdgeFollowRules = { edge_types: new Set(['Supports', 'Refutes']), exclude_edge_types: new Set(['Refutes']), weight_threshold: 0.3 };
    const { reached } = await cheapestPaths(g, ['s'], all({ rules }));
    expect([...reached.keys()].sort()).toEqual(['a', 's']);
  });

  it('stops at max_nodes, keeps the cheapest nodes and says it truncated', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a', 0.9).edge('e2', 's', 'b', 0.8).edge('e3', 's', 'c', 0.7).edge('e4', 's', 'd', 0.6);
    const r = await cheapestPaths(g, ['s'], all({ max_nodes: 2 }));
    expect(r.truncated).toBe(true);
    expect([...r.reached.keys()].filter((u) => u !== 's').sort()).toEqual(['a', 'b']);
  });

  it('is not truncated when the cap is met exactly and nothing else is reachable', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a', 0.9).edge('e2', 'a', 'b', 0.8);
    const r = await cheapestPaths(g, ['s'], all({ max_nodes: 2 }));
    expect(r.truncated).toBe(false);
    expect(r.reached.size).toBe(3);
  });

  it('reports truncation when the cap is met exactly but more nodes lie beyond', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a', 0.9).edge('e2', 's', 'b', 0.8).edge('e3', 'a', 'c', 0.8);
    const r = await cheapestPaths(g, ['s'], all({ max_nodes: 2 }));
    expect(r.truncated).toBe(true);
    expect(r.reached.has('c')).toBe(false);
  });

  it('fetches adjacency once per hop for the whole frontier', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a').edge('e2', 's', 'b').edge('e3', 'a', 'c').edge('e4', 'b', 'd');
    await cheapestPaths(g, ['s'], all({ max_depth: 2, direction: 'outgoing' }));
    expect(g.calls).toBe(2);
  });

  it('treats several starts as depth 0 and never re-enters them', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's1', 'x', 0.5).edge('e2', 's2', 'x', 0.9).edge('e3', 's1', 's2', 0.9);
    const { reached } = await cheapestPaths(g, ['s1', 's2'], all());
    expect(reached.get('s2')!.hops).toBe(0);
    expect(reached.get('x')!.parent).toBe('s2');
  });

  it('orders steps by depth, then cost, then uid', () => {
    const base = { confidence: 1, first_hop: 1, parent: 's', edge_uid: 'e', edge_type: 'Supports', direction: 'outgoing' as const };
    const steps = [
      { ...base, uid: 'c', hops: 2, cost: 0.1 },
      { ...base, uid: 'b', hops: 1, cost: 0.5 },
      { ...base, uid: 'a', hops: 1, cost: 0.5 },
      { ...base, uid: 'd', hops: 1, cost: 0.2 },
    ].sort(compareSteps);
    expect(steps.map((s) => s.uid)).toEqual(['d', 'a', 'b', 'c']);
  });
});
