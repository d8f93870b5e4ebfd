import { EventData, EventType } from './domain-event';

/**
 * An event a rule decided and the unit of work has not yet appended: the stream it goes to,
 * its type and its data, typed together. Deciders return these; a handler stages them on its
 * transaction with `tx.emit`, the one way anything is written.
 */
export type PendingEvent = { [T in EventType]: { stream: string; type: T; data: EventData<T> } }[EventType];

/** The pending event of type T on `stream`. */
export function pendingEvent<T extends EventType>(stream: string, type: T, data: EventData<T>): Extract<PendingEvent, { type: T }> {
  // TypeScript cannot relate a generic T to its member of the mapped union; the signature does
  return { stream, type, data } as unknown as Extract<PendingEvent, { type: T }>;
}
