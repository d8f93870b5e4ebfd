import { RecordedEvent } from '@strata/domain/events';
import { SalienceChange, TextDocument } from '@strata/text-index/text-index.port';
import { textChangeOf } from '../embedded/text-document';
import { MergedRuns } from './merged-runs';

/**
 * What a batch of events does to the full-text index, as a short list of calls: consecutive
 * calls of the same kind are merged (one request per run instead of one per event) and order
 * is kept otherwise, so the result equals applying events one by one.
 */

type TextUpsert = { kind: 'upsert'; docs: TextDocument[] };
type TextRemove = { kind: 'remove'; org: string; uids: string[] };
type TextSalience = { kind: 'salience'; org: string; changes: SalienceChange[] };

export type TextWrite = TextUpsert | TextRemove | TextSalience | { kind: 'removeOrg'; org: string };

export function planTextWrites(events: RecordedEvent[]): TextWrite[] {
  const out: TextWrite[] = [];
  const upserts = new MergedRuns<TextUpsert, TextDocument>((w, docs) => (w.docs = docs));
  const removes = new MergedRuns<TextRemove, string>((w, uids) => (w.uids = uids));
  const saliences = new MergedRuns<TextSalience, SalienceChange>((w, changes) => (w.changes = changes));
  // one document per uid in a call: the later version replaces the earlier one
  const upsert = (doc: TextDocument) => upserts.run(out, () => true, () => ({ kind: 'upsert', docs: [] })).put(`${doc.org}\u0000${doc.uid}`, doc);
  const remove = (org: string, uids: string[]) => {
    if (!uids.length) return;
    const run = removes.run(out, (w) => w.org === org, () => ({ kind: 'remove', org, uids: [] }));
    for (const u of uids) run.add(u, u);
  };
  for (const e of events) {
    const change = textChangeOf(e);
    if (!change) continue;
    if (change.kind === 'upsert') upsert(change.doc);
    else if (change.kind === 'remove') remove(change.org, change.uids);
    else if (change.kind === 'salience') {
      const run = saliences.run(out, (w) => w.org === change.org, () => ({ kind: 'salience', org: change.org, changes: [] }));
      for (const c of change.changes) run.put(c.uid, c);
    } else out.push(change);
  }
  upserts.finish();
  removes.finish();
  saliences.finish();
  return out;
}
