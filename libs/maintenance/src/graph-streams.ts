import { Streams } from '@strata/domain/events';

/**
 * The streams that can hold an organization's graph, from the uids of its nodes and edges:
 * each node's own, vector and series streams (deleting one that was never written is a no-op),
 * each edge's, and the org-wide graph stream.
 */
export function graphStreamsOf(org: string, uids: { nodes: string[]; edges: string[] }): string[] {
  const out: string[] = [];
  for (const u of uids.nodes) out.push(Streams.node(org, u), Streams.embedding(org, u), Streams.series(org, u));
  for (const u of uids.edges) out.push(Streams.edge(org, u));
  out.push(Streams.graph(org));
  return out;
}
