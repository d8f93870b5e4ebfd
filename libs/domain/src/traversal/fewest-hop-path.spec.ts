import { fewestHopPath } from './fewest-hop-path';
import { InMemoryTraversalGraph } from './in-memory-traversal-graph';

const opts = { max_depth: 5, direction: 'both' as const, rules: {}, max_nodes: 10_000 };

describe('fewestHopPath', () => {
  it('prefers fewer hops over a cheaper longer path', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 't', 0.1).edge('e2', 's', 'm', 0.99).edge('e3', 'm', 't', 0.99);
    const r = await fewestHopPath(g, 's', 't', opts);
    expect(r.found).toBe(true);
    expect(r.path.map((p) => p.uid)).toEqual(['s', 't']);
  });

  it('among paths with the fewest hops takes the cheapest', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a', 0.3).edge('e2', 'a', 't', 0.3).edge('e3', 's', 'b', 0.9).edge('e4', 'b', 't', 0.9);
    const r = await fewestHopPath(g, 's', 't', opts);
    expect(r.path.map((p) => p.uid)).toEqual(['s', 'b', 't']);
    expect(r.path[2].cost).toBeCloseTo(-2 * Math.log(0.9), 12);
  });

  it('answers not found beyond max_depth or across a tombstoned node', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 's', 'a').edge('e2', 'a', 'b').edge('e3', 'b', 't');
    expect((await fewestHopPath(g, 's', 't', { ...opts, max_depth: 2 })).found).toBe(false);
    g.node('b', { tombstoned: true });
    expect((await fewestHopPath(g, 's', 't', opts)).found).toBe(false);
  });

  it('returns the start alone when start and end are the same node', async () => {
    const r = await fewestHopPath(new InMemoryTraversalGraph().node('s'), 's', 's', opts);
    expect(r.found).toBe(true);
    expect(r.path).toHaveLength(1);
    expect(r.path[0].hops).toBe(0);
  });

  it('honours direction', async () => {
    const g = new InMemoryTraversalGraph().edge('e1', 't', 's');
    expect((await fewestHopPath(g, 's', 't', { ...opts, direction: 'outgoing' })).found).toBe(false);
    const r = await fewestHopPath(g, 's', 't', { ...opts, direction: 'incoming' });
    expect(r.path[1].direction).toBe('incoming');
  });
});
