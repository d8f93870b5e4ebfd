import type { Provider } from '@nestjs/common';
import { KurrentDbEventStore } from '@strata/event-store';
import type { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { EMBEDDED_STORAGE, SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import { EmbeddedLogSubscriptions } from './embedded/embedded-log-subscriptions';
import { KurrentDbLogSubscriptions } from './kurrentdb/kurrentdb-log-subscriptions';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { FollowedLog, mirrorLogSubscriptions } from './mirror/mirror-log-subscriptions';
import { LOG_SUBSCRIPTIONS, LogSubscriptions } from './log-subscription.port';

/**
 * Live subscriptions for the storage mode in use: the embedded log, woken by the unit of
 * work's group commits; in servers mode the log as this replica's mirror has applied it (what
 * the streams read beside each event is then there), else KurrentDB's own subscriptions. A
 * module that streams adds this provider beside PlatformModule's exports.
 */
export function logSubscriptionsFor(embedded: EmbeddedStorage | null, server: ServerStores | null, mirror: FollowedLog | null = null): LogSubscriptions {
  if (embedded) return new EmbeddedLogSubscriptions(embedded.events, embedded);
  if (server && mirror) return mirrorLogSubscriptions(server.events, mirror);
  if (server?.events instanceof KurrentDbEventStore) return new KurrentDbLogSubscriptions(server.events.client, server.events);
  return new NoLogSubscriptions();
}

const NO_LIVE_LOG = 'live log subscriptions need the embedded log or KurrentDB';

/**
 * A log that offers no subscriptions (a server event store other than KurrentDB, as test
 * doubles are): the service still starts, and only a request that streams is refused.
 */
class NoLogSubscriptions implements LogSubscriptions {
  subscribe(): never {
    throw new Error(NO_LIVE_LOG);
  }
  head(): Promise<number> {
    return Promise.reject(new Error(NO_LIVE_LOG));
  }
  async close(): Promise<void> {}
}

export const LOG_SUBSCRIPTIONS_PROVIDER: Provider = {
  provide: LOG_SUBSCRIPTIONS,
  inject: [EMBEDDED_STORAGE, SERVER_STORAGE, { token: AccountsMirror, optional: true }],
  useFactory: (e: EmbeddedStorage | null, s: ServerStores | null, m: AccountsMirror | null) => logSubscriptionsFor(e, s, m ?? null),
};
