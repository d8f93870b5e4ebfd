import { GraphPurgedData, NodeVersionedData, RecordedEvent } from '@strata/domain/events';
import { TextDocument } from '@strata/text-index/text-index.port';
import { textDocumentOf } from '../embedded/text-document';
import { MergedRuns } from './merged-runs';

/**
 * What a batch of events does to the full-text index, as a short list of calls: consecutive
 * calls of the same kind are merged (one request per run instead of one per event) and order
 * is kept otherwise, so the result equals applying events one by one.
 */

type TextUpsert = { kind: 'upsert'; docs: TextDocument[] };
type TextRemove = { kind: 'remove'; org: string; uids: string[] };

export type TextWrite = TextUpsert | TextRemove | { kind: 'removeOrg'; org: string };

export function planTextWrites(events: RecordedEvent[]): TextWrite[] {
  const out: TextWrite[] = [];
  const upserts = new MergedRuns<TextUpsert, TextDocument>((w, docs) => (w.docs = docs));
  const removes = new MergedRuns<TextRemove, string>((w, uids) => (w.uids = uids));
  // one document per uid in a call: the later version replaces the earlier one
  const upsert = (doc: TextDocument) => upserts.run(out, () => true, () => ({ kind: 'upsert', docs: [] })).put(`${doc.org}\u0000${doc.uid}`, doc);
  const remove = (org: string, uids: string[]) => {
    if (!uids.length) return;
    const run = removes.run(out, (w) => w.org === org, () => ({ kind: 'remove', org, uids: [] }));
    for (const u of uids) run.add(u, u);
  };
  for (const e of events) {
    const org = e.metadata.org_id;
    switch (e.type) {
      case 'NodeCreated':
      case 'NodeUpdated':
      case 'NodeRestored':
      case 'NodeTombstoned': {
        const n = (e.data as NodeVersionedData).node;
        if (n.tombstone_at === null) upsert(textDocumentOf(org, n));
        else remove(org, [n.uid]);
        break;
      }
      case 'GraphPurged':
        remove(org, (e.data as GraphPurgedData).node_uids);
        break;
      case 'GraphCleared':
        out.push({ kind: 'removeOrg', org });
        break;
    }
  }
  upserts.finish();
  removes.finish();
  return out;
}
