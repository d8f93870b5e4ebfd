import { getNodeType, searchableText } from '@strata/domain/catalogue';
import { NodeRecord } from '@strata/domain/records';
import { TextDocument } from '@strata/text-index/text-index.port';

/** What the full-text index holds for a live node; which props count comes from the catalogue. */
export function textDocumentOf(org: string, n: NodeRecord): TextDocument {
  return {
    org,
    uid: n.uid,
    node_type: n.node_type,
    layer: n.layer,
    label: n.label,
    summary: n.summary ?? '',
    body: searchableText(getNodeType(n.node_type) ?? null, n.props),
  };
}
