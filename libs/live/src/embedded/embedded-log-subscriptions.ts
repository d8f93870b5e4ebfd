import type { RecordedEvent } from '@strata/domain/events';
import type { EventStore } from '@strata/event-store';
import { openLiveSubscription } from '../delivery-queue';
import {
  DEFAULT_BUFFER_SIZE,
  LiveSubscription,
  LogConsumer,
  LogSubscriptionOptions,
  LogSubscriptions,
  matchesFilter,
} from '../log-subscription.port';
import { CommitSource } from './commit-signal';

/** events read from the log per catch-up page */
const PAGE = 256;

/**
 * Live subscriptions on the embedded (SQLite) log. A subscription reads the log after its
 * cursor in pages: paced by its consumer while catching up, then once per commit signal (the
 * unit of work's group commit), so an idle subscription costs no reads at all. Order, no skip
 * and no duplicate follow from reading the log itself, never from what the signal carries.
 */
export class EmbeddedLogSubscriptions implements LogSubscriptions {
  private readonly wakers = new Set<() => void>();
  private readonly open = new Set<LiveSubscription>();
  /**
   * Pages read since the last commit, shared: subscriptions woken by one commit at the same
   * cursor with the same filter (the streams of one session) read the log once between them,
   * not once each. A commit forgets them all (the log may have grown past any of them).
   */
  private pages = new Map<string, Promise<RecordedEvent[]>>();

  constructor(
    private readonly store: Pick<EventStore, 'readAll' | 'headPosition'>,
    commits: CommitSource,
  ) {
    commits.onCommitted(() => {
      this.pages = new Map();
      for (const w of this.wakers) w();
    });
  }

  private sharedPage(after: number, limit: number, prefixes: readonly string[] | undefined): Promise<RecordedEvent[]> {
    const key = `${after}|${limit}|${prefixes ? prefixes.join('\u0000') : '*'}`;
    const pages = this.pages;
    let page = pages.get(key);
    if (!page) {
      page = this.store.readAll({ after, limit, ...(prefixes ? { streamPrefixes: [...prefixes] } : {}) });
      pages.set(key, page);
      page.catch(() => pages.delete(key));
    }
    return page;
  }

  subscribe(options: LogSubscriptionOptions, consumer: LogConsumer): LiveSubscription {
    const capacity = Math.max(1, options.bufferSize ?? DEFAULT_BUFFER_SIZE);
    const filter = options.filter;
    let dirty = true;
    let wake: (() => void) | null = null;
    const waker = () => {
      dirty = true;
      const w = wake;
      wake = null;
      w?.();
    };
    this.wakers.add(waker);
    const readPage = (after: number, limit: number) => this.sharedPage(after, limit, filter?.streamPrefixes);
    const onEnd = () => {
      this.wakers.delete(waker);
      waker();
    };
    return openLiveSubscription(consumer, capacity, this.open, onEnd, async (queue, resolveStarted) => {
      let cursor = options.from === 'now' ? await this.store.headPosition() : Math.max(0, options.from);
      queue.position = cursor;
      resolveStarted(cursor);
      let live = options.from === 'now';
      // catch-up: read only what the queue can hold, so a long replay never overflows it
      while (!live && !queue.isEnded) {
        if (queue.room < Math.min(PAGE, capacity)) {
          await queue.drained();
          continue;
        }
        const limit = Math.min(PAGE, capacity);
        const page = await readPage(cursor, limit);
        for (const e of page) if (matchesFilter(e, filter) && !queue.push(e)) return;
        if (page.length > 0) cursor = page[page.length - 1].position;
        if (page.length < limit) live = true;
        await yieldToLoop();
      }
      // live: read everything new after each commit; a consumer that lags more than the
      // queue holds is dropped by push()
      while (!queue.isEnded) {
        if (!dirty) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        dirty = false;
        for (;;) {
          const page = await readPage(cursor, PAGE);
          for (const e of page) if (matchesFilter(e, filter) && !queue.push(e)) return;
          if (page.length > 0) cursor = page[page.length - 1].position;
          if (page.length < PAGE || queue.isEnded) break;
          await yieldToLoop();
        }
      }
    });
  }

  head(): Promise<number> {
    return this.store.headPosition();
  }

  async close(): Promise<void> {
    for (const s of [...this.open]) await s.close();
  }
}

function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
