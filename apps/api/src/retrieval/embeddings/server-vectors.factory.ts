import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { ServerProjectionRunner } from '@strata/projections/server/server-projection-runner';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { AutoEmbedFeed } from './auto-embed-feed';
import { ServerVectors } from './server-vectors';
import type { Clock } from '@strata/domain/time';

/** The feed holds its lease this long past a stalled replica; another replica then takes over. */
const FEED_LEASE_TTL_MS = 15_000;
/** How long the feed waits for the read models to show a batch before retrying it. */
const FEED_READ_WAIT_MS = 30_000;

/** ServerVectors with its automatic-embedding feed: one runner per replica, one lease across them. */
export function serverVectors(storage: ServerStores, opts: { feed: boolean; clock: Clock }): ServerVectors {
  if (!opts.feed) return new ServerVectors(storage.vectors, storage.graph, null);
  let vectors: ServerVectors | undefined;
  const feed = new AutoEmbedFeed(
    storage.events,
    (position) => storage.projections.waitFor(position, FEED_READ_WAIT_MS),
    (events) => vectors!.deliver(events),
  );
  const runner = new ServerProjectionRunner({
    log: storage.events,
    checkpoints: storage.checkpoints,
    leases: storage.leases({ ttlMs: FEED_LEASE_TTL_MS }),
    leaseName: 'auto-embed',
    projections: [feed],
    owner: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
    logger: new Logger('AutoEmbedFeed'),
    clock: opts.clock,
  });
  vectors = new ServerVectors(storage.vectors, storage.graph, {
    start: () => runner.start(),
    stop: async () => {
      const stopping = runner.stop();
      feed.interrupt(); // a batch waiting for lagging read models must not hold the shutdown
      await stopping;
    },
  });
  return vectors;
}
