import { ExpectedRevision, StreamAppend, WrongExpectedRevisionError } from './event-store.port';

/**
 * Checks an expected revision against a stream's current revision (-1 = no stream) and throws
 * WrongExpectedRevisionError on mismatch. A numeric -1 means "no stream", so callers may pass
 * the result of streamRevision() straight back.
 */
export function checkExpectedRevision(stream: string, expected: ExpectedRevision, actual: number): void {
  if (!revisionMatches(expected, actual)) throw new WrongExpectedRevisionError(stream, expected, actual);
}

export function revisionMatches(expected: ExpectedRevision, actual: number): boolean {
  switch (expected) {
    case 'any':
      return true;
    case 'no_stream':
      return actual === -1;
    case 'exists':
      return actual >= 0;
    default:
      return actual === expected;
  }
}

/**
 * Rejects malformed appends before any I/O, identically in every adapter: each stream at most
 * once per append (otherwise the second expectation would be ambiguous), integer revisions
 * >= -1, and events with a type.
 */
export function assertValidAppends(appends: readonly StreamAppend[]): void {
  if (!Array.isArray(appends)) throw new TypeError('append expects an array of stream appends');
  // most appends name one stream: no set of names to hash then
  const seen = appends.length > 1 ? new Set<string>() : null;
  for (const a of appends) {
    if (!a || typeof a.stream !== 'string' || a.stream.length === 0) {
      throw new TypeError('every stream append needs a non-empty stream name');
    }
    if (seen) {
      if (seen.has(a.stream)) throw new TypeError(`stream ${a.stream} appears more than once in one append`);
      seen.add(a.stream);
    }
    const e = a.expectedRevision;
    if (typeof e === 'number') {
      if (!Number.isSafeInteger(e) || e < -1) throw new RangeError(`invalid expected revision ${e} for ${a.stream}`);
    } else if (e !== 'any' && e !== 'no_stream' && e !== 'exists') {
      throw new TypeError(`invalid expected revision ${String(e)} for ${a.stream}`);
    }
    if (!Array.isArray(a.events)) throw new TypeError(`events of ${a.stream} must be an array`);
    for (const ev of a.events) {
      if (!ev || typeof ev.type !== 'string' || ev.type.length === 0) {
        throw new TypeError(`every event appended to ${a.stream} needs a type`);
      }
      if (!ev.metadata || typeof ev.metadata !== 'object') {
        throw new TypeError(`every event appended to ${a.stream} needs metadata`);
      }
    }
  }
}
