import { distinctSearchableParts, getNodeType } from '@strata/domain/catalogue';
import { RecordedEvent, isGraphEvent, unhandled } from '@strata/domain/events';
import { NodeRecord } from '@strata/domain/records';
import { SalienceChange, TextDocument } from '@strata/text-index/text-index.port';

/**
 * What the full-text index holds for a live node; which props count comes from the catalogue.
 * Each distinct string once, in the first column that holds it (label, then summary, then the
 * props): a Claim whose `content` repeats its label word for word is indexed once, with the
 * label's weight, instead of once more in the body (which doubled its tokens and the length
 * BM25 divides by).
 */
export function textDocumentOf(org: string, n: NodeRecord): TextDocument {
  const summary = n.summary && n.summary !== n.label ? n.summary : '';
  return {
    org,
    uid: n.uid,
    node_type: n.node_type,
    layer: n.layer,
    label: n.label,
    summary,
    body: distinctSearchableParts(getNodeType(n.node_type) ?? null, n.props, summary ? [n.label, summary] : [n.label]).join('\n'),
    salience: n.salience,
  };
}

/** One change to the full-text index. */
export type TextChange =
  | { kind: 'upsert'; doc: TextDocument }
  | { kind: 'remove'; org: string; uids: string[] }
  /** salience breaks ties on score inside the index, so it follows decay and reinforcement */
  | { kind: 'salience'; org: string; changes: SalienceChange[] }
  | { kind: 'removeOrg'; org: string };

/**
 * What an event changes in the full-text index, or null: live nodes are indexed, tombstones
 * leave it, restores return, purges and clears remove. The one rule for the embedded
 * projection, its replay planner and the servers' Meilisearch projection.
 */
export function textChangeOf(e: RecordedEvent): TextChange | null {
  if (!isGraphEvent(e)) return null;
  const org = e.metadata.org_id;
  switch (e.type) {
    case 'NodeCreated':
    case 'NodeUpdated':
    case 'NodeRestored':
    case 'NodeTombstoned': {
      const n = e.data.node;
      return n.tombstone_at === null ? { kind: 'upsert', doc: textDocumentOf(org, n) } : { kind: 'remove', org, uids: [n.uid] };
    }
    case 'GraphPurged':
      return { kind: 'remove', org, uids: e.data.node_uids };
    case 'GraphCleared':
      return { kind: 'removeOrg', org };
    case 'NodeTouched':
      return e.data.salience === undefined ? null : { kind: 'salience', org, changes: [{ uid: e.data.uid, salience: e.data.salience }] };
    case 'SalienceDecayed':
      return e.data.items.length ? { kind: 'salience', org, changes: e.data.items.map((i) => ({ uid: i.uid, salience: i.salience })) } : null;
    // maintained counters, aliases, vectors, series points and edges are not indexed text
    case 'AliasSet':
    case 'AliasRemoved':
    case 'EmbeddingConfigured':
    case 'EmbeddingSet':
    case 'EmbeddingDeleted':
    case 'SeriesPointsAppended':
    case 'EdgeCreated':
    case 'EdgeUpdated':
    case 'EdgeTombstoned':
    case 'EdgeRestored':
      return null;
    default:
      unhandled(e);
      return null;
  }
}
