import { getNodeType } from '../catalogue/node-types';
import { searchableText } from '../props/searchable-text';
import { NodeRecord } from '../records';

/** What gets embedded for a node (REFERENCE §8.7): label, summary and the string props. */
export function embeddingTextOf(n: Pick<NodeRecord, 'label' | 'summary' | 'node_type' | 'props'>): string {
  const parts = [n.label];
  if (n.summary && n.summary !== n.label) parts.push(n.summary);
  const body = searchableText(getNodeType(n.node_type) ?? null, n.props);
  if (body) parts.push(body);
  return parts.join('\n');
}
