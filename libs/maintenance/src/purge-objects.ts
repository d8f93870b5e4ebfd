import { Streams } from '@strata/domain/events';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/** GraphTx.deleteStreams spreads its argument into a call: hand it bounded slices. */
export function deleteStreamsInSlices(tx: GraphTx, streams: string[]): void {
  for (let i = 0; i < streams.length; i += 10_000) tx.deleteStreams(streams.slice(i, i + 10_000));
}

export interface PurgeCounts {
  nodes_purged: number;
  edges_purged: number;
  versions_purged: number;
  aliases_purged: number;
  embeddings_purged: number;
  points_purged: number;
}

/**
 * Permanently deletes nodes and edges (REFERENCE §7.3): their streams leave the log, every
 * edge touching a purged node goes too, and one GraphPurged event records who purged what
 * and when (the event's metadata) — the only trace that remains.
 */
export async function purgeObjects(tx: GraphTx, nodeUids: string[], edgeUids: string[], cutoff: number | null): Promise<PurgeCounts> {
  const nodes = [...new Set(nodeUids)];
  const edges = new Set(edgeUids);
  let aliases = 0;
  let embeddings = 0;
  let points = 0;
  for (const uid of nodes) {
    for (const e of await tx.edges({ touching: uid, include_tombstoned: true })) edges.add(e.uid);
    aliases += (await tx.reader.aliasesOf(tx.org, uid)).length;
    if (await tx.reader.getEmbedding(tx.org, uid)) embeddings++;
    points += await tx.reader.seriesPointCount(tx.org, uid);
  }
  const edgeList = [...edges];
  const versions = await tx.reader.versionCount(tx.org, nodes, edgeList);
  if (nodes.length === 0 && edgeList.length === 0)
    return { nodes_purged: 0, edges_purged: 0, versions_purged: 0, aliases_purged: 0, embeddings_purged: 0, points_purged: 0 };
  deleteStreamsInSlices(tx, [
    ...nodes.flatMap((u) => [Streams.node(tx.org, u), Streams.embedding(tx.org, u), Streams.series(tx.org, u)]),
    ...edgeList.map((u) => Streams.edge(tx.org, u)),
  ]);
  tx.emit(Streams.graph(tx.org), 'GraphPurged', { node_uids: nodes, edge_uids: edgeList, cutoff });
  return {
    nodes_purged: nodes.length,
    edges_purged: edgeList.length,
    versions_purged: versions,
    aliases_purged: aliases,
    embeddings_purged: embeddings,
    points_purged: points,
  };
}
