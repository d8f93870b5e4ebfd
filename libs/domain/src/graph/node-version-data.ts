import type { NodeVersionedData } from '../events/graph-events';
import { classificationOf } from '../governance/classification';
import type { NodeRecord } from '../records';

/**
 * The data of a node version event: the new record, the reason, and whether its classification
 * moved from the version before (readers keeping the Space membership in memory read it again).
 */
export function nodeVersionData(before: NodeRecord | null | undefined, node: NodeRecord, reason: string | null): NodeVersionedData {
  return before && classificationOf(before) !== classificationOf(node) ? { node, reason, classification_changed: true } : { node, reason };
}
