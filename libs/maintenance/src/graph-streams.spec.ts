import { Streams } from '@strata/domain/events';
import { graphStreamsOf } from './graph-streams';

describe('graphStreamsOf', () => {
  it('names each node’s own, vector and series streams, each edge’s stream, and the graph stream last', () => {
    expect(graphStreamsOf('o', { nodes: ['n1', 'n2'], edges: ['e1'] })).toEqual([
      Streams.node('o', 'n1'),
      Streams.embedding('o', 'n1'),
      Streams.series('o', 'n1'),
      Streams.node('o', 'n2'),
      Streams.embedding('o', 'n2'),
      Streams.series('o', 'n2'),
      Streams.edge('o', 'e1'),
      Streams.graph('o'),
    ]);
  });

  it('still clears the org-wide stream of an organization without nodes or edges', () => {
    expect(graphStreamsOf('o', { nodes: [], edges: [] })).toEqual([Streams.graph('o')]);
  });

  it('never names another organization’s streams', () => {
    expect(graphStreamsOf('org-a', { nodes: ['x'], edges: ['y'] }).every((s) => s.includes('org-a'))).toBe(true);
  });
});
