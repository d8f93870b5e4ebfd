import { NewEvent, RecordedEvent } from '@strata/domain/events';

export const EVENT_STORE = Symbol('EVENT_STORE');

/**
 * Expected state of a stream before an append:
 * - a number: the stream's current revision must equal it (0-based revision of its last event);
 *   -1 therefore means "no stream", so streamRevision()'s answer can be passed straight back
 * - 'no_stream': the stream must not exist
 * - 'exists': the stream must exist
 * - 'any': no check
 */
export type ExpectedRevision = number | 'no_stream' | 'exists' | 'any';

export interface StreamAppend {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: NewEvent[];
}

export interface AppendResult {
  /** global position of the last event written */
  position: number;
  /** new revision per stream */
  revisions: Record<string, number>;
}

export interface ReadAllOptions {
  /** read events with position strictly greater than this (0 = from the start) */
  after: number;
  /** max events to return */
  limit: number;
  /** only events of streams whose name starts with one of these prefixes (literal,
   *  case-sensitive; an empty list matches nothing) */
  streamPrefixes?: string[];
}

export interface Subscription {
  close(): Promise<void>;
}

/**
 * The event log. One append may write to several streams; it is atomic (all or nothing) and
 * checks every stream's expected revision. Positions are global and strictly increasing, but
 * not necessarily dense (SQLite: 1, 2, 3… with gaps after deletes; KurrentDB: log offsets).
 * A stream may appear at most once per append.
 */
export interface EventStore {
  append(appends: StreamAppend[]): Promise<AppendResult>;
  /** events of one stream from a revision (inclusive), in order, at most `maxCount`; [] when the stream does not exist */
  readStream(stream: string, fromRevision?: number, maxCount?: number): Promise<RecordedEvent[]>;
  /** current revision of a stream, or -1 when it does not exist */
  streamRevision(stream: string): Promise<number>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** position of the newest event (0 when empty) */
  headPosition(): Promise<number>;
  /**
   * Calls `handler` for every event after `after`, in order, then for each new event as it is
   * committed. The handler is awaited before the next event is delivered.
   */
  subscribe(after: number, handler: (event: RecordedEvent) => Promise<void> | void): Subscription;
  /** permanently removes streams (purge, clear) */
  deleteStreams(streams: string[]): Promise<void>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  constructor(
    public readonly stream: string,
    public readonly expected: ExpectedRevision,
    public readonly actual: number,
  ) {
    super(`wrong expected revision on ${stream}: expected ${String(expected)}, actual ${actual}`);
    this.name = 'WrongExpectedRevisionError';
  }
}
