import type { RecordedEvent } from '@strata/domain/events';
import { DropReason, LiveSubscription, LogConsumer } from './log-subscription.port';

/**
 * The consumer side every adapter shares: a bounded queue of matching events and one delivery
 * loop that awaits the consumer before handing it the next. `push` refuses (and drops the
 * subscription) when the queue is full; `room` tells a paced reader whether to read more.
 */
export class DeliveryQueue {
  private readonly queue: RecordedEvent[] = [];
  private delivering = false;
  private ended = false;
  private idleWaiters: (() => void)[] = [];
  /** position of the last event handed to the consumer */
  position: number;

  constructor(
    private readonly consumer: LogConsumer,
    private readonly capacity: number,
    start: number,
    private readonly onEnd: () => void,
  ) {
    this.position = start;
  }

  get isEnded(): boolean {
    return this.ended;
  }
  get size(): number {
    return this.queue.length;
  }
  /** free places before the queue is full */
  get room(): number {
    return this.capacity - this.queue.length;
  }

  /** false when the subscription ended (closed, or dropped because the queue overflowed) */
  push(event: RecordedEvent): boolean {
    if (this.ended) return false;
    if (this.queue.length >= this.capacity) {
      this.drop('slow_consumer');
      return false;
    }
    this.queue.push(event);
    if (!this.delivering) void this.deliver();
    return true;
  }

  /** resolves when every queued event was delivered (or the subscription ended) */
  drained(): Promise<void> {
    if (this.ended || (this.queue.length === 0 && !this.delivering)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  drop(reason: DropReason, error?: unknown): void {
    if (this.ended) return;
    this.end();
    try {
      this.consumer.dropped?.(reason, error);
    } catch {
      // a consumer's own clean-up failing must not break the source's loop
    }
  }

  /** the owner closed it: no dropped() call */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.queue.length = 0;
    this.wakeIdle();
    this.onEnd();
  }

  private wakeIdle(): void {
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  private async deliver(): Promise<void> {
    this.delivering = true;
    try {
      while (!this.ended && this.queue.length > 0) {
        const event = this.queue.shift() as RecordedEvent;
        this.position = event.position;
        try {
          await this.consumer.event(event);
        } catch (err) {
          this.drop('consumer_failed', err);
          return;
        }
      }
    } finally {
      this.delivering = false;
      this.wakeIdle();
    }
  }
}

/**
 * What every adapter's `subscribe` shares: the delivery queue, the handle with its `started`
 * promise, the set of open subscriptions, and a source failure ending the subscription as
 * 'source_failed'. `run` reads the adapter's log into the queue and calls `started` with the
 * position it starts after; `onEnd` releases what the adapter holds for this subscription.
 */
export function openLiveSubscription(
  consumer: LogConsumer,
  capacity: number,
  open: Set<LiveSubscription>,
  onEnd: () => void,
  run: (queue: DeliveryQueue, started: (position: number) => void) => Promise<void>,
): LiveSubscription {
  let resolveStarted!: (position: number) => void;
  const started = new Promise<number>((r) => (resolveStarted = r));
  const queue = new DeliveryQueue(consumer, capacity, 0, () => {
    open.delete(subscription);
    onEnd();
  });
  const subscription: LiveSubscription = {
    get position() {
      return queue.position;
    },
    started,
    close: async () => queue.end(),
  };
  open.add(subscription);
  void Promise.resolve()
    .then(() => run(queue, resolveStarted))
    .catch((err) => {
      resolveStarted(queue.position);
      queue.drop('source_failed', err);
    });
  return subscription;
}
