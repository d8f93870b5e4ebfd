import { PendingEvent } from '@strata/domain/events';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/**
 * Stages a decision's events on the request's transaction, in order. The object a versioned
 * change is about is read through the transaction just before, so their stream revision guards
 * the append (a decider may have read them from a snapshot).
 */
export async function applyChanges(tx: GraphTx, changes: readonly PendingEvent[]): Promise<void> {
  for (const c of changes) {
    switch (c.type) {
      case 'NodeUpdated':
      case 'NodeTombstoned':
      case 'NodeRestored':
        await tx.node(c.data.node.uid);
        break;
      case 'NodeTouched':
        await tx.node(c.data.uid);
        break;
      case 'EdgeUpdated':
      case 'EdgeTombstoned':
      case 'EdgeRestored':
        await tx.edge(c.data.edge.uid);
        break;
      default:
        break;
    }
    tx.emit(c);
  }
}
