import { BACKWARDS, END, FORWARDS, KurrentDBClient } from '@kurrent/kurrentdb-client';
import type { AllStreamSubscription, MultiAppendResult, Position } from '@kurrent/kurrentdb-client';
import type { RecordedEvent } from '@strata/domain/events';
import { IdGenerator, randomIds } from '@strata/domain/time';
import { AppendResult, EventStore, ReadAllOptions, StreamAppend, Subscription } from '../event-store.port';
import { checkExpectedRevision } from '../expected-revision';
import {
  PositionMemory,
  isDeleteOfMissingStream,
  isMissingStreamError,
  mapAppendError,
  matchesPrefixes,
  planAppend,
  positionToNumber,
  revisionsFromResult,
  slices,
  streamFilter,
  toRecordedEvent,
  toSafeNumber,
} from './kurrentdb-translation';

/** stream deletes in flight at once */
const DELETE_CONCURRENCY = 64;

export interface KurrentDbEventStoreOptions {
  /** event id generator (DESIGN rule 8); random UUIDs by default */
  ids?: IdGenerator;
  /** wait before re-subscribing after a dropped subscription (ms) */
  resubscribeDelayMs?: number;
}

export interface KurrentDbSubscribeOptions {
  /**
   * Called when the handler throws (the subscription stops so nothing is skipped; the owner
   * resumes from its checkpoint) or when the server drops the subscription (it re-subscribes
   * after the last delivered event). Without it errors are logged with console.error.
   */
  onError?: (error: unknown, event?: RecordedEvent) => void;
}

/**
 * Event log on a KurrentDB 25.1+ server (`STRATA_STORE=servers`). Translation rules
 * (positions, metadata, expected revisions, filters, errors) live in kurrentdb-translation.ts.
 *
 * - append: one atomic multiStreamAppend per call. Streams listed without events are checked
 *   by a read just before the append (not atomically with it: the server API offers no
 *   check-only condition before 26.1).
 * - deleteStreams: soft delete. readStream/streamRevision forget the stream and it can be
 *   written again with 'no_stream', but KurrentDB continues its revisions where they stopped
 *   and the old events stay visible to readAll/subscribe until a scavenge removes them —
 *   projections must rely on the purge/clear marker events, not on the events vanishing.
 */
export class KurrentDbEventStore implements EventStore {
  readonly client: KurrentDBClient;
  private readonly ownsClient: boolean;
  private readonly ids: IdGenerator;
  private readonly resubscribeDelayMs: number;
  private readonly positions = new PositionMemory();
  private readonly subscriptions = new Set<Subscription>();

  /** `connection` is a connection string (e.g. kurrentdb://localhost:2113?tls=false) or a client */
  constructor(connection: string | KurrentDBClient, opts: KurrentDbEventStoreOptions = {}) {
    this.ownsClient = typeof connection === 'string';
    this.client = typeof connection === 'string' ? KurrentDBClient.connectionString(connection) : connection;
    this.ids = opts.ids ?? randomIds;
    this.resubscribeDelayMs = opts.resubscribeDelayMs ?? 1000;
  }

  async append(appends: StreamAppend[]): Promise<AppendResult> {
    const plan = planAppend(appends, () => this.ids.uuid());
    const revisions: Record<string, number> = {};
    for (const c of plan.checks) {
      const actual = await this.streamRevision(c.stream);
      checkExpectedRevision(c.stream, c.expected, actual);
      revisions[c.stream] = actual;
    }
    if (plan.requests.length === 0) return { position: await this.headPosition(), revisions };

    let result: MultiAppendResult;
    try {
      result = await this.client.multiStreamAppend(plan.requests);
    } catch (err) {
      throw mapAppendError(err, appends);
    }
    const written = revisionsFromResult(result);
    Object.assign(revisions, written);
    return { position: await this.positionOfAppend(written, result.position), revisions };
  }

  /**
   * The position of the last event written, in the same numbering readAll uses. Read back from
   * the last event of each written stream rather than trusting the append response's single
   * log position, whose relation to the events' {commit, prepare} pairs the server does not
   * document; a wrong value would make read-your-writes wait too little or forever. The events
   * are committed by now, so a failed read-back falls back to the reported position instead of
   * failing the append.
   */
  private async positionOfAppend(written: Record<string, number>, reported: bigint): Promise<number> {
    const found = await Promise.all(
      Object.entries(written).map(async ([stream, revision]) => {
        try {
          for await (const resolved of this.client.readStream(stream, { fromRevision: BigInt(revision), maxCount: 1 })) {
            const p = resolved.event?.position;
            if (p) {
              this.positions.remember(p);
              return positionToNumber(p);
            }
          }
        } catch {
          // fall through to the reported position
        }
        return undefined;
      }),
    );
    const known = found.filter((p): p is number => p !== undefined);
    return known.length === found.length && known.length > 0 ? Math.max(...known) : toSafeNumber(reported, 'position');
  }

  async readStream(stream: string, fromRevision = 0, maxCount?: number): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    if (maxCount !== undefined && maxCount <= 0) return out;
    try {
      for await (const resolved of this.client.readStream(stream, {
        fromRevision: BigInt(Math.max(0, fromRevision)),
        direction: FORWARDS,
        ...(maxCount === undefined ? {} : { maxCount: Math.floor(maxCount) }),
      })) {
        const e = this.recorded(resolved);
        if (e) out.push(e);
      }
    } catch (err) {
      if (isMissingStreamError(err)) return [];
      throw err;
    }
    return out;
  }

  async streamRevision(stream: string): Promise<number> {
    try {
      for await (const resolved of this.client.readStream(stream, { fromRevision: END, direction: BACKWARDS, maxCount: 1 })) {
        if (resolved.event) return toSafeNumber(resolved.event.revision, 'revision');
      }
    } catch (err) {
      if (isMissingStreamError(err)) return -1;
      throw err;
    }
    return -1;
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    const after = Math.max(0, options.after || 0);
    const limit = Math.floor(options.limit);
    const prefixes = options.streamPrefixes;
    if (!(limit > 0) || (prefixes && prefixes.length === 0)) return [];
    const out: RecordedEvent[] = [];
    for await (const resolved of this.client.readAll({
      fromPosition: this.positions.startAfter(after),
      direction: FORWARDS,
      // the start is inclusive, so one extra event may be the one at `after` itself
      maxCount: limit + 1,
      filter: streamFilter(prefixes),
    })) {
      const e = this.recorded(resolved);
      if (!e || e.position <= after || !matchesPrefixes(e.stream, prefixes)) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  async headPosition(): Promise<number> {
    for await (const resolved of this.client.readAll({
      fromPosition: END,
      direction: BACKWARDS,
      maxCount: 1,
      filter: streamFilter(),
    })) {
      const e = this.recorded(resolved);
      if (e) return e.position;
    }
    return 0;
  }

  /**
   * Catch-up subscription on $all (server-side filter: user streams only). Delivery is in
   * position order, each event once: the handler is awaited (for-await on the subscription
   * stream applies backpressure) and anything at or before the last delivered position is
   * dropped, which also covers re-subscribing after the server dropped the subscription.
   */
  subscribe(
    after: number,
    handler: (event: RecordedEvent) => Promise<void> | void,
    options: KurrentDbSubscribeOptions = {},
  ): Subscription {
    let cursor = Math.max(0, after || 0);
    let closed = false;
    let current: AllStreamSubscription | undefined;
    let cancelDelay: (() => void) | undefined;
    const report = (error: unknown, event?: RecordedEvent) => {
      if (options.onError) options.onError(error, event);
      else console.error(`[event-store] subscription ${event ? `handler failed at position ${event.position}` : 'dropped'}:`, error);
    };
    const subscription: Subscription = {
      close: async () => {
        if (closed) return;
        closed = true;
        this.subscriptions.delete(subscription);
        cancelDelay?.();
        await current?.unsubscribe().catch(() => undefined);
      },
    };
    const run = async () => {
      while (!closed) {
        const sub = this.client.subscribeToAll({ fromPosition: this.positions.startAfter(cursor), filter: streamFilter() });
        current = sub;
        try {
          for await (const resolved of sub) {
            if (closed) break;
            const event = this.recorded(resolved);
            if (!event || event.position <= cursor) continue;
            try {
              await handler(event);
            } catch (err) {
              await subscription.close();
              report(err, event);
              return;
            }
            cursor = event.position;
          }
        } catch (err) {
          if (!closed) report(err);
        } finally {
          await sub.unsubscribe().catch(() => undefined);
        }
        if (!closed) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.resubscribeDelayMs);
            cancelDelay = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          cancelDelay = undefined;
        }
      }
    };
    this.subscriptions.add(subscription);
    void run();
    return subscription;
  }

  /**
   * One delete call per stream (the server has no bulk delete), at most DELETE_CONCURRENCY in
   * flight: a clear names three streams per node, and a large organization's hundreds of
   * thousands of calls must not all be opened at once.
   */
  async deleteStreams(streams: string[]): Promise<void> {
    for (const slice of slices([...new Set(streams)], DELETE_CONCURRENCY)) {
      await Promise.all(
        slice.map(async (stream) => {
          try {
            await this.client.deleteStream(stream);
          } catch (err) {
            if (!isDeleteOfMissingStream(err)) throw err;
          }
        }),
      );
    }
  }

  async close(): Promise<void> {
    for (const s of [...this.subscriptions]) await s.close();
    if (this.ownsClient) await this.client.dispose();
  }

  private recorded(resolved: Parameters<typeof toRecordedEvent>[0]): RecordedEvent | undefined {
    const position: Position | undefined = resolved.event?.position;
    if (position) this.positions.remember(position);
    return toRecordedEvent(resolved);
  }
}
