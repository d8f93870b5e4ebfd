import { GraphChange } from '@strata/domain/cognitive';
import { Streams } from '@strata/domain/events';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/**
 * Stages a decision's changes on the request's transaction, in order. Existing objects are
 * read through the transaction first so their stream revision guards the append.
 */
export async function applyChanges(tx: GraphTx, changes: readonly GraphChange[]): Promise<void> {
  for (const c of changes) {
    switch (c.type) {
      case 'NodeCreated':
        tx.createNode(c.node);
        break;
      case 'NodeUpdated':
      case 'NodeTombstoned':
        await tx.node(c.node.uid);
        tx.putNode(c.node, c.type, c.reason);
        break;
      case 'NodeTouched':
        await tx.node(c.uid);
        tx.touchNode(c.uid, c.props);
        break;
      case 'EdgeCreated':
        tx.createEdge(c.edge);
        break;
      case 'EdgeTombstoned':
        await tx.edge(c.edge.uid);
        tx.putEdge(c.edge, 'EdgeTombstoned', c.reason);
        break;
      case 'SeriesPointsAppended':
        tx.emit(Streams.series(tx.org, c.series_uid), 'SeriesPointsAppended', { series_uid: c.series_uid, points: c.points });
        break;
      case 'AliasSet':
        tx.emit(Streams.node(tx.org, c.alias.canonical_uid), 'AliasSet', { ...c.alias, created_at: tx.now });
        break;
    }
  }
}
