import type { AllStreamSubscription, KurrentDBClient } from '@kurrent/kurrentdb-client';
import type { EventStore } from '@strata/event-store';
import { PositionMemory, toRecordedEvent } from '@strata/event-store/kurrentdb/kurrentdb-translation';
import { openLiveSubscription } from '../delivery-queue';
import {
  DEFAULT_BUFFER_SIZE,
  LiveSubscription,
  LogConsumer,
  LogSubscriptionOptions,
  LogSubscriptions,
  matchesFilter,
} from '../log-subscription.port';
import { serverFilterFor, startPositionFor } from './kurrentdb-live-filter';

/**
 * Live subscriptions on KurrentDB: one server-side filtered catch-up subscription to $all per
 * consumer (the official client's subscribeToAll). While catching up, iteration waits for the
 * consumer (the gRPC stream applies backpressure); after the server reports `caughtUp`, events
 * are queued as they arrive and a consumer that lags more than the buffer is dropped. A
 * subscription the server drops ends as 'source_failed': a live client reconnects from its
 * last id, which is cheaper to get right than a silent resubscribe.
 */
export class KurrentDbLogSubscriptions implements LogSubscriptions {
  private readonly positions = new PositionMemory();
  private readonly open = new Set<LiveSubscription>();

  constructor(
    private readonly client: KurrentDBClient,
    private readonly store: Pick<EventStore, 'headPosition'>,
  ) {}

  subscribe(options: LogSubscriptionOptions, consumer: LogConsumer): LiveSubscription {
    const capacity = Math.max(1, options.bufferSize ?? DEFAULT_BUFFER_SIZE);
    const filter = options.filter;
    let sub: AllStreamSubscription | undefined;
    const onEnd = () => void sub?.unsubscribe().catch(() => undefined);
    return openLiveSubscription(consumer, capacity, this.open, onEnd, async (queue, resolveStarted) => {
      const start = options.from === 'now' ? await this.store.headPosition() : Math.max(0, options.from);
      queue.position = start;
      if (queue.isEnded) return resolveStarted(start);
      if (filter?.streamPrefixes && filter.streamPrefixes.length === 0) return resolveStarted(start); // matches nothing
      let live = false;
      sub = this.client.subscribeToAll({ fromPosition: startPositionFor(options.from, this.positions), filter: serverFilterFor(filter) });
      sub.on('caughtUp', () => (live = true));
      resolveStarted(start);
      for await (const resolved of sub) {
        if (queue.isEnded) return;
        if (resolved.event?.position) this.positions.remember(resolved.event.position);
        const event = toRecordedEvent(resolved);
        if (!event || event.position <= start || !matchesFilter(event, filter)) continue;
        if (!live && queue.room === 0) await queue.drained();
        if (!queue.push(event)) return;
      }
      if (!queue.isEnded) queue.drop('source_failed', new Error('the server ended the subscription'));
    });
  }

  head(): Promise<number> {
    return this.store.headPosition();
  }

  async close(): Promise<void> {
    for (const s of [...this.open]) await s.close();
  }
}
