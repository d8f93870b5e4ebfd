/**
 * Pure translation between the Strata event-store port and @kurrent/kurrentdb-client types.
 * No I/O here, so every mapping rule is unit-tested without a server.
 *
 * Global positions. KurrentDB addresses the $all log with a {commit, prepare} pair of bigints
 * (byte offsets in the transaction file). The port wants one strictly increasing JS number, so
 * an event's position is its PREPARE position, as a number:
 *  - events written by ordinary and multi-stream appends have commit === prepare; where they
 *    differ (legacy explicit transactions) the prepare position is still unique per event;
 *  - byte offsets stay below Number.MAX_SAFE_INTEGER (9 PB) — anything larger throws rather
 *    than silently losing precision;
 *  - positions are not dense and do not start at 1 (system records sit between ours).
 * To resume "after P" the adapter needs the full pair again: PositionMemory remembers the
 * pairs it has seen; otherwise {commit: P, prepare: P} is used. $all reads are inclusive of
 * their start, so callers drop events whose position is <= P.
 *
 * Metadata. Multi-stream append (server 25.1+) only accepts string→string properties, from
 * which the server synthesizes the JSON metadata that readers see. The whole envelope metadata
 * is therefore stored as one JSON string under METADATA_PROPERTY and parsed back on read.
 */
import {
  ANY,
  NO_STREAM,
  STREAM_EXISTS,
  jsonEvent,
  streamNameFilter,
  START,
  WrongExpectedVersionError,
} from '@kurrent/kurrentdb-client';
import type {
  AllStreamResolvedEvent,
  AppendStreamRequest,
  AppendStreamState,
  CurrentStreamState,
  EventData,
  Filter,
  JSONType,
  MultiAppendResult,
  Position,
  ReadPosition,
  ResolvedEvent,
} from '@kurrent/kurrentdb-client';
import { EventMetadata, NewEvent, RecordedEvent, recordedEvent } from '@strata/domain/events';
import { ExpectedRevision, StreamAppend, WrongExpectedRevisionError } from '../event-store.port';
import { assertValidAppends } from '../expected-revision';

/** property (and synthesized metadata key) holding the JSON-encoded envelope metadata */
export const METADATA_PROPERTY = 'strata-metadata';

/** server-side filter that keeps every non-system stream ($-prefixed streams are KurrentDB's) */
export const USER_STREAMS_REGEX = '^[^$]';

// ---------- expected revisions ----------

export function toAppendStreamState(expected: ExpectedRevision): AppendStreamState {
  switch (expected) {
    case 'any':
      return ANY;
    case 'no_stream':
      return NO_STREAM;
    case 'exists':
      return STREAM_EXISTS;
    default:
      if (!Number.isSafeInteger(expected) || expected < -1) throw new RangeError(`invalid expected revision ${expected}`);
      // -1 is what streamRevision() answers for a missing stream
      return expected === -1 ? NO_STREAM : BigInt(expected);
  }
}

/** a stream's current state as the server reports it → the port's revision (-1 = none) */
export function fromCurrentStreamState(state: CurrentStreamState | AppendStreamState | undefined): number {
  if (typeof state === 'bigint') return state < 0n ? -1 : toSafeNumber(state, 'revision');
  return -1; // no_stream, or a deleted/tombstoned stream
}

// ---------- events ----------

export function encodeMetadata(metadata: EventMetadata): Record<string, string> {
  return { [METADATA_PROPERTY]: JSON.stringify(metadata) };
}

/**
 * Reads envelope metadata back from what the server returns: our property (synthesized into
 * a JSON object by the server), or, for events written by other tools, the metadata object
 * itself. Anything else yields an empty object rather than failing a whole read.
 */
export function decodeMetadata(raw: unknown): EventMetadata {
  if (raw && typeof raw === 'object' && !(raw instanceof Uint8Array)) {
    const encoded = (raw as Record<string, unknown>)[METADATA_PROPERTY];
    if (typeof encoded === 'string') return JSON.parse(encoded) as EventMetadata;
    if (encoded && typeof encoded === 'object') return encoded as EventMetadata;
    return raw as EventMetadata;
  }
  return {} as EventMetadata;
}

export function toEventData(event: NewEvent, id: string): EventData {
  return jsonEvent({
    id,
    type: event.type,
    // the client JSON.stringifies data; undefined would not survive that
    data: (event.data ?? null) as unknown as JSONType,
    metadata: encodeMetadata(event.metadata),
  });
}

export interface AppendPlan {
  /** one request per stream that has events, in the caller's order */
  requests: AppendStreamRequest[];
  /** streams listed without events: their expectation is checked, nothing is written */
  checks: Array<{ stream: string; expected: ExpectedRevision }>;
}

/** validates like every adapter does, then builds the multiStreamAppend requests */
export function planAppend(appends: StreamAppend[], newId: () => string): AppendPlan {
  assertValidAppends(appends);
  const plan: AppendPlan = { requests: [], checks: [] };
  for (const a of appends) {
    if (a.events.length === 0) {
      plan.checks.push({ stream: a.stream, expected: a.expectedRevision });
      continue;
    }
    plan.requests.push({
      streamName: a.stream,
      expectedState: toAppendStreamState(a.expectedRevision),
      events: a.events.map((e) => toEventData(e, newId())),
    });
  }
  return plan;
}

export function revisionsFromResult(result: MultiAppendResult): Record<string, number> {
  const revisions: Record<string, number> = {};
  for (const r of result.responses) revisions[r.streamName] = toSafeNumber(r.revision, 'revision');
  return revisions;
}

/** true for KurrentDB's own streams and event types ($-prefixed), including link events */
export function isSystemEvent(streamId: string, type: string): boolean {
  return streamId.startsWith('$') || type.startsWith('$');
}

/**
 * A resolved event from a stream or $all read/subscription → RecordedEvent, or undefined for
 * what the port does not expose (system streams, link events, missing records).
 */
export function toRecordedEvent(resolved: ResolvedEvent | AllStreamResolvedEvent): RecordedEvent | undefined {
  const e = resolved.event;
  if (!e || isSystemEvent(e.streamId, e.type)) return undefined;
  let position: number;
  if (e.position) position = positionToNumber(e.position);
  else if (resolved.commitPosition !== undefined) position = toSafeNumber(resolved.commitPosition, 'position');
  else throw new Error(`event ${e.id} in ${e.streamId} has no log position (KurrentDB 25.1+ is required)`);
  return recordedEvent({
    id: e.id,
    stream: e.streamId,
    revision: toSafeNumber(e.revision, 'revision'),
    position,
    type: e.type,
    data: e.data,
    metadata: decodeMetadata(e.metadata),
  });
}

// ---------- positions ----------

export function toSafeNumber(value: bigint, what: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n)) throw new RangeError(`KurrentDB ${what} ${value} does not fit a JS number`);
  return n;
}

export function positionToNumber(position: Position): number {
  return toSafeNumber(position.prepare, 'position');
}

/**
 * Remembers recent {commit, prepare} pairs by their number so that resuming after a position
 * the adapter has seen (the common case: the next page, a live subscription) starts exactly
 * there. Bounded: oldest entries are forgotten first.
 */
export class PositionMemory {
  private readonly pairs = new Map<number, bigint>();
  constructor(private readonly capacity = 10_000) {}

  remember(position: Position): void {
    const key = positionToNumber(position);
    if (position.commit === position.prepare) return; // the fallback already gets it right
    this.pairs.delete(key);
    this.pairs.set(key, position.commit);
    if (this.pairs.size > this.capacity) this.pairs.delete(this.pairs.keys().next().value as number);
  }

  /** where a $all read/subscription must start to see every event after `after` */
  startAfter(after: number): ReadPosition {
    if (!(after > 0)) return START;
    const prepare = BigInt(Math.floor(after));
    return { commit: this.pairs.get(after) ?? prepare, prepare };
  }
}

// ---------- filters ----------

/**
 * Server-side stream filter for $all reads/subscriptions: the given prefixes, or every user
 * stream. (An empty prefix list matches nothing; callers short-circuit it before reading.)
 */
export function streamFilter(prefixes?: readonly string[]): Filter {
  if (prefixes && prefixes.length > 0) return streamNameFilter({ prefixes: [...prefixes] });
  return streamNameFilter({ regex: USER_STREAMS_REGEX });
}

/** client-side twin of streamFilter, applied again because a prefix filter may match '$' streams */
export function matchesPrefixes(stream: string, prefixes?: readonly string[]): boolean {
  return !prefixes || prefixes.some((p) => stream.startsWith(p));
}

// ---------- errors ----------

function isWrongExpectedVersion(err: unknown): err is WrongExpectedVersionError {
  return (
    err instanceof WrongExpectedVersionError ||
    (typeof err === 'object' && err !== null && (err as { type?: unknown }).type === 'wrong-expected-version')
  );
}

/**
 * Client append errors → port errors. A revision conflict becomes WrongExpectedRevisionError
 * carrying the caller's own expectation for that stream; everything else passes through.
 */
export function mapAppendError(err: unknown, appends: readonly StreamAppend[]): unknown {
  if (!isWrongExpectedVersion(err)) return err;
  const stream = err.streamName;
  const mine = appends.find((a) => a.stream === stream) ?? (appends.length === 1 ? appends[0] : undefined);
  const expected: ExpectedRevision = mine ? mine.expectedRevision : fromAppendStreamState(err.expectedState);
  return new WrongExpectedRevisionError(mine?.stream ?? stream, expected, fromCurrentStreamState(err.actualState));
}

function fromAppendStreamState(state: AppendStreamState): ExpectedRevision {
  if (state === ANY) return 'any';
  if (state === NO_STREAM) return 'no_stream';
  if (state === STREAM_EXISTS) return 'exists';
  return toSafeNumber(state, 'revision');
}

/**
 * Deleting a stream that does not exist: the server answers a wrong-expected-version with
 * actual "no stream" even for expected ANY; deleteStreams treats it as done.
 */
export function isDeleteOfMissingStream(err: unknown): boolean {
  return isMissingStreamError(err) || (isWrongExpectedVersion(err) && fromCurrentStreamState(err.actualState) === -1);
}

/** reading a stream that was never written, or was deleted, is "no stream" for the port */
export function isMissingStreamError(err: unknown): boolean {
  const type = typeof err === 'object' && err !== null ? (err as { type?: unknown }).type : undefined;
  return type === 'stream-not-found' || type === 'stream-deleted' || type === 'stream-tombstoned';
}

/** Consecutive pieces of at most `size` items, in order (bounded fan-out of per-stream calls). */
export function slices<T>(items: T[], size: number): T[][] {
  if (!(size >= 1)) throw new Error(`slice size must be at least 1, got ${size}`);
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
