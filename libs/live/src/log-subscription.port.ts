import type { RecordedEvent } from '@strata/domain/events';

export const LOG_SUBSCRIPTIONS = Symbol('LOG_SUBSCRIPTIONS');

/** Which recorded events a live subscription delivers. Every given condition must hold. */
export interface LogFilter {
  /** streams whose name starts with one of these (literal, case-sensitive); an empty list matches nothing */
  streamPrefixes?: readonly string[];
  /** event types, exact */
  types?: readonly string[];
  /** any further test, applied in process (organization, agent, …) */
  where?: (event: RecordedEvent) => boolean;
}

/** Why a subscription ended without its owner closing it. */
export type DropReason =
  /** more undelivered events piled up than the buffer holds: the consumer is too slow */
  | 'slow_consumer'
  /** the consumer's handler threw */
  | 'consumer_failed'
  /** the log could not be read */
  | 'source_failed';

export interface LogSubscriptionOptions {
  /** deliver events after this log position; 'now' = only events committed from now on */
  from: number | 'now';
  filter?: LogFilter;
  /** most matching events held for a consumer that has not taken them yet (default 1000) */
  bufferSize?: number;
}

export interface LogConsumer {
  /** one event, in log order; awaited before the next */
  event(event: RecordedEvent): Promise<void> | void;
  /** the subscription ended on its own; not called after close() */
  dropped?(reason: DropReason, error?: unknown): void;
}

export interface LiveSubscription {
  /** position of the last event handed to the consumer (or the start) */
  readonly position: number;
  /** resolves once the position the subscription started from is known ('now' is resolved to the head) */
  readonly started: Promise<number>;
  close(): Promise<void>;
}

/**
 * Live, filtered subscriptions to the event log: catch-up from a position, then new events as
 * they commit, in log order, each once. Catch-up is paced by the consumer; once live, a
 * consumer that falls more than `bufferSize` matching events behind is dropped.
 */
export interface LogSubscriptions {
  subscribe(options: LogSubscriptionOptions, consumer: LogConsumer): LiveSubscription;
  /** position of the newest event in the log (0 when empty) */
  head(): Promise<number>;
  /** ends every subscription (shutdown) */
  close(): Promise<void>;
}

export const DEFAULT_BUFFER_SIZE = 1000;

export function matchesFilter(event: RecordedEvent, filter: LogFilter | undefined): boolean {
  if (!filter) return true;
  if (filter.streamPrefixes && !filter.streamPrefixes.some((p) => event.stream.startsWith(p))) return false;
  if (filter.types && !filter.types.includes(event.type)) return false;
  if (filter.where && !filter.where(event)) return false;
  return true;
}
