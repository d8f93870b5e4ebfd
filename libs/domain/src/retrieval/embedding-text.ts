import { getNodeType } from '../catalogue/node-types';
import { distinctSearchableParts } from '../props/searchable-text';
import { NodeRecord } from '../records';

/**
 * What gets embedded for a node (REFERENCE §8.7): label, summary and the string props, each
 * distinct string once. A Claim's `content`, an Event's `description` or a Question's `text`
 * is often its label word for word; embedding it twice only doubles the embedder's work (and
 * the weight of those words against the node's other props).
 */
export function embeddingTextOf(n: Pick<NodeRecord, 'label' | 'summary' | 'node_type' | 'props'>): string {
  const parts = [n.label];
  if (n.summary && n.summary !== n.label) parts.push(n.summary);
  return [...parts, ...distinctSearchableParts(getNodeType(n.node_type) ?? null, n.props, parts)].join('\n');
}
