import { InMemoryTraversalGraph } from './in-memory-traversal-graph';
import { kCheapestPaths } from './k-cheapest-paths';

const opts = { k: 3, max_hops: 8, direction: 'outgoing' as const, rules: {} };

function diamond(): InMemoryTraversalGraph {
  // three routes s→t: direct (0.2), via a (0.9·0.9), via b (0.6·0.6), plus a cycle a→s
  return new InMemoryTraversalGraph()
    .edge('d', 's', 't', 0.2)
    .edge('sa', 's', 'a', 0.9)
    .edge('at', 'a', 't', 0.9)
    .edge('sb', 's', 'b', 0.6)
    .edge('bt', 'b', 't', 0.6)
    .edge('as', 'a', 's', 0.99);
}

describe('kCheapestPaths', () => {
  it('returns the k cheapest simple paths in cost order', async () => {
    const r = await kCheapestPaths(diamond(), 's', 't', opts);
    expect(r.paths.map((p) => p.node_uids.join('>'))).toEqual(['s>a>t', 's>b>t', 's>t']);
    expect(r.paths[0].cost).toBeCloseTo(-2 * Math.log(0.9), 12);
    expect(r.paths[0].edge_uids).toEqual(['sa', 'at']);
    for (const p of r.paths) expect(new Set(p.node_uids).size).toBe(p.node_uids.length);
  });

  it('limits to k and to max_hops', async () => {
    expect((await kCheapestPaths(diamond(), 's', 't', { ...opts, k: 1 })).paths).toHaveLength(1);
    const oneHop = await kCheapestPaths(diamond(), 's', 't', { ...opts, max_hops: 1 });
    expect(oneHop.paths.map((p) => p.node_uids.join('>'))).toEqual(['s>t']);
  });

  it('prunes paths costlier than max_cost', async () => {
    const r = await kCheapestPaths(diamond(), 's', 't', { ...opts, max_cost: 1.1 });
    expect(r.paths.map((p) => p.node_uids.join('>'))).toEqual(['s>a>t', 's>b>t']);
  });

  it('finds nothing when the end cannot be reached', async () => {
    const g = diamond().node('island');
    expect((await kCheapestPaths(g, 's', 'island', opts)).paths).toEqual([]);
  });

  it('stays within its budget when countless equal-cost paths tie, keeping the best k in order', async () => {
    // s → 7 layers of 6 nodes, each fully joined to the next → t: 6^7 (~280k) equally cheap paths
    const g = new InMemoryTraversalGraph();
    const layers = Array.from({ length: 7 }, (_, l) => Array.from({ length: 6 }, (_, i) => `l${l}n${i}`));
    let n = 0;
    for (const v of layers[0]) g.edge(`e${n++}`, 's', v, 0.5);
    for (let l = 0; l + 1 < layers.length; l++) for (const a of layers[l]) for (const b of layers[l + 1]) g.edge(`e${n++}`, a, b, 0.5);
    for (const v of layers[layers.length - 1]) g.edge(`e${n++}`, v, 't', 0.5);
    const r = await kCheapestPaths(g, 's', 't', { ...opts, k: 3, max_hops: 8, max_expansions: 5_000 });
    expect(r.truncated).toBe(true);
    expect(r.paths).toHaveLength(3);
    expect(r.paths.map((p) => p.hops)).toEqual([8, 8, 8]);
    const keys = r.paths.map((p) => p.node_uids.join('>'));
    expect([...keys].sort()).toEqual(keys);
  });
});
