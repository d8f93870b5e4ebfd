import type { RecordedEvent } from '@strata/domain/events';
import type { EventStore } from '@strata/event-store/event-store.port';

/** Where the first event sits, and the distance between neighbours, in the log a client sees. */
const OFFSET = 1000;
const STRIDE = 97;

const outer = (p: number) => (p === 0 ? 0 : p * STRIDE + OFFSET);
/** the last inner position whose outer position is <= `after` */
const innerAfter = (after: number) => Math.max(0, Math.floor((after - OFFSET) / STRIDE));
const event = (e: RecordedEvent): RecordedEvent => ({ ...e, position: outer(e.position) });

/**
 * The same log with positions as KurrentDB gives them: strictly increasing, but neither dense
 * nor starting at 1 (an event's prepare position in bytes, system records in between). A
 * SQLite log numbers events 1, 2, 3…; code that took positions for counts would pass there
 * and fail against KurrentDB.
 */
export function withSparsePositions(log: EventStore): EventStore {
  return {
    append: async (a) => {
      const r = await log.append(a);
      return { ...r, position: outer(r.position) };
    },
    readStream: async (stream, from, max) => (await log.readStream(stream, from, max)).map(event),
    streamRevision: (stream) => log.streamRevision(stream),
    readAll: async (o) => (await log.readAll({ ...o, after: innerAfter(o.after) })).map(event),
    headPosition: async () => outer(await log.headPosition()),
    deleteStreams: (streams) => log.deleteStreams(streams),
    close: () => log.close(),
    subscribe: (after, handler) => log.subscribe(innerAfter(after), (e) => handler(event(e))),
  };
}
