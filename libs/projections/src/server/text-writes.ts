import { GraphPurgedData, NodeVersionedData, RecordedEvent } from '@strata/domain/events';
import { TextDocument } from '@strata/text-index/text-index.port';
import { textDocumentOf } from '../embedded/text.projection';

/**
 * What a batch of events does to the full-text index, as a short list of calls: consecutive
 * calls of the same kind are merged (one request per run instead of one per event) and order
 * is kept otherwise, so the result equals applying events one by one.
 */

export type TextWrite =
  | { kind: 'upsert'; docs: TextDocument[] }
  | { kind: 'remove'; org: string; uids: string[] }
  | { kind: 'removeOrg'; org: string };

export function planTextWrites(events: RecordedEvent[]): TextWrite[] {
  const out: TextWrite[] = [];
  for (const e of events) {
    const org = e.metadata.org_id;
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeRestored':
      case 'NodeTombstoned': {
        const n = (e.data as NodeVersionedData).node;
        if (n.tombstone_at === null) pushUpsert(out, textDocumentOf(org, n));
        else pushRemove(out, org, [n.uid]);
        break;
      }
      case 'GraphPurged':
        pushRemove(out, org, (e.data as GraphPurgedData).node_uids);
        break;
      case 'GraphCleared':
        out.push({ kind: 'removeOrg', org });
        break;
    }
  }
  return out;
}

function pushUpsert(out: TextWrite[], doc: TextDocument): void {
  const last = out[out.length - 1];
  if (last?.kind === 'upsert') {
    // one document per uid in a call: the later version replaces the earlier one
    const i = last.docs.findIndex((d) => d.org === doc.org && d.uid === doc.uid);
    if (i >= 0) last.docs.splice(i, 1);
    last.docs.push(doc);
  } else out.push({ kind: 'upsert', docs: [doc] });
}

function pushRemove(out: TextWrite[], org: string, uids: string[]): void {
  if (!uids.length) return;
  const last = out[out.length - 1];
  if (last?.kind === 'remove' && last.org === org) last.uids.push(...uids.filter((u) => !last.uids.includes(u)));
  else out.push({ kind: 'remove', org, uids: [...uids] });
}
