import { RecordedEvent } from '@strata/domain/events';
import { AppendResult, StreamAppend } from '@strata/event-store/event-store.port';
import { rawDataOf, setRawData } from '@strata/event-store/sqlite/raw-event-data';

/**
 * Rebuilds the recorded form of a just-appended batch without reading it back: one append
 * takes consecutive positions in the order given, and each stream's revisions end at the
 * returned revision.
 */
export function recordedFromAppend(appends: StreamAppend[], result: AppendResult): RecordedEvent[] {
  const total = appends.reduce((n, a) => n + a.events.length, 0);
  let position = result.position - total + 1;
  const out: RecordedEvent[] = [];
  for (const a of appends) {
    let revision = result.revisions[a.stream] - a.events.length + 1;
    for (const e of a.events) {
      const recorded: RecordedEvent = { ...e, id: '', stream: a.stream, revision: revision++, position: position++ };
      // the stored data text, so the projections do not serialise the same record again
      const raw = rawDataOf(e);
      if (raw !== undefined) setRawData(recorded, raw);
      out.push(recorded);
    }
  }
  return out;
}
