import type { RecordedEvent } from '@strata/domain/events';
import type { EventStore } from '@strata/event-store';
import { EmbeddedLogSubscriptions } from '../embedded/embedded-log-subscriptions';
import type { LogSubscriptions } from '../log-subscription.port';

/** A replica's log mirror as the subscriptions see it (AccountsMirror fits). */
export interface FollowedLog {
  /** every event of the log up to this position has been applied to the mirror's read models */
  readonly position: number;
  /** called after each event the mirror applied */
  onFollowed(listener: (e: RecordedEvent) => void): void;
}

/**
 * Servers mode: live subscriptions that deliver an event only once this replica's log mirror
 * applied it, so a stream that looks an event up in a mirrored read model (a session event's
 * `seq`, an activity item) always finds it. The embedded adapter's reading, paced and
 * resumable, over the server log; what it may read is bounded by the mirror's position, and
 * it is woken by each event the mirror follows rather than by a commit of its own. Works on
 * any server event store, KurrentDB or not.
 */
export function mirrorLogSubscriptions(events: Pick<EventStore, 'readAll'>, mirror: FollowedLog): LogSubscriptions {
  const applied = {
    readAll: async (o: Parameters<EventStore['readAll']>[0]) => {
      const upTo = mirror.position;
      const page = await events.readAll(o);
      const i = page.findIndex((e) => e.position > upTo);
      return i < 0 ? page : page.slice(0, i);
    },
    headPosition: async () => mirror.position,
  };
  return new EmbeddedLogSubscriptions(applied, { onCommitted: (listener) => mirror.onFollowed(() => listener([])) });
}
