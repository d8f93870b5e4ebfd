import { END, eventTypeFilter, streamNameFilter } from '@kurrent/kurrentdb-client';
import type { Filter, ReadPosition } from '@kurrent/kurrentdb-client';
import { PositionMemory, USER_STREAMS_REGEX } from '@strata/event-store/kurrentdb/kurrentdb-translation';
import { LogFilter } from '../log-subscription.port';

/**
 * The part of a LogFilter the server can apply to a $all subscription. KurrentDB takes one
 * filter, on stream names or on event types: stream prefixes win (they are the narrower, and
 * the indexed, one), else exact types as an anchored regex, else every user stream. Whatever
 * the server cannot apply (`where`, types beside prefixes) runs again in process.
 */
export function serverFilterFor(filter: LogFilter | undefined): Filter {
  if (filter?.streamPrefixes && filter.streamPrefixes.length > 0) return streamNameFilter({ prefixes: [...filter.streamPrefixes] });
  if (filter?.types && filter.types.length > 0) return eventTypeFilter({ regex: `^(?:${filter.types.map(escapeRegex).join('|')})$` });
  return streamNameFilter({ regex: USER_STREAMS_REGEX });
}

/** where the subscription starts: after a known position, or at the end of the log for 'now' */
export function startPositionFor(from: number | 'now', positions: PositionMemory): ReadPosition {
  return from === 'now' ? END : positions.startAfter(from);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
