import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RecordedEvent } from '@strata/domain/events';
import type { Clock } from '@strata/domain/time';
import { ConnectionCaps } from '../connection-caps';
import type { SubscriberCount } from '../subscriber-count';
import { DEFAULT_BUFFER_SIZE, LogFilter, LogSubscriptions } from '../log-subscription.port';
import { Timers, systemTimers } from '../timers';
import { SseConnection } from './sse-connection';
import { SseFrame } from './sse-frame';

export interface SseStreamsOptions {
  subscriptions: LogSubscriptions;
  clock: Clock;
  timers?: Timers;
  /** the client's reconnect delay, sent as `retry:` (default 3000 ms) */
  retryMs?: number;
  /** a `: heartbeat <unix>` comment this often (default 15 s) */
  heartbeatMs?: number;
  /** the stream is closed after this long; the client reconnects from its last id (default 30 min) */
  maxLifetimeMs?: number;
  /** open streams per cap key (default 10) */
  maxStreamsPerKey?: number;
  /** matching events a client may lag before it is dropped (default 1000) */
  maxBehind?: number;
  /** told of each stream opened and closed (`StrataMetrics.liveSubscribers.labels('sse')` fits) */
  subscribers?: SubscriberCount;
}


/** What one route streams. Event ids are log positions unless `positionOfId` says otherwise. */
export interface SseStreamSpec {
  /** what the concurrent-stream cap counts under (a credential, a session) */
  capKey: string;
  filter?: LogFilter;
  /** the event (or nothing, to skip it) a recorded event becomes on the wire */
  /** may wait (a read model this process keeps apart from the log catching up with the event) */
  toFrame(event: RecordedEvent): SseFrame | null | Promise<SseFrame | null>;
  /** sent first, without an id, once the start position is known */
  ready?(startPosition: number): SseFrame;
  /** the stream closes after sending the frame of such an event */
  isTerminal?(event: RecordedEvent): boolean;
  /** the log position a client's event id (Last-Event-ID or ?after) stands for; default: the id is the position */
  positionOfId?(id: number): Promise<number> | number;
  /**
   * Frames that never reach the log (live only, sent without an id): called once `ready` is
   * written with a `send` for this stream; returns what stops them when the stream closes.
   */
  live?(send: (frame: SseFrame) => void): () => void;
}

export class SseResumeError extends Error {}

/**
 * Serves a filtered slice of the event log as Server-Sent Events on a Fastify route: resume
 * from Last-Event-ID, else ?after, else new events only; a `ready` event; heartbeats; a cap on
 * concurrent streams per key answered 429 before anything is streamed; closes after the
 * lifetime, on a terminal event, when the client lags too far, and cleans up when the client
 * goes away.
 */
export class SseLogStreams {
  private readonly caps: ConnectionCaps;
  private readonly timers: Timers;
  private readonly open = new Set<SseConnection>();

  constructor(private readonly opts: SseStreamsOptions) {
    this.caps = new ConnectionCaps(opts.maxStreamsPerKey ?? 10);
    this.timers = opts.timers ?? systemTimers;
  }

  /** streams currently open (all keys) */
  get size(): number {
    return this.open.size;
  }

  async serve(request: FastifyRequest, reply: FastifyReply, spec: SseStreamSpec): Promise<void> {
    let resumeId: number | null;
    try {
      resumeId = resumeIdOf(request);
    } catch (err) {
      if (!(err instanceof SseResumeError)) throw err;
      await reply.code(400).send({ error: err.message, code: 'invalid_field', field: 'after' });
      return;
    }
    const release = this.caps.acquire(spec.capKey);
    if (!release) {
      await reply
        .code(429)
        .header('retry-after', '1')
        .send({ error: `at most ${this.caps.max} concurrent streams; close one first`, code: 'rate_limited' });
      return;
    }
    let from: number | 'now';
    try {
      from = resumeId === null ? 'now' : spec.positionOfId ? await spec.positionOfId(resumeId) : resumeId;
    } catch (err) {
      release();
      throw err;
    }

    reply.hijack();
    const conn = new SseConnection(reply.raw);
    this.open.add(conn);
    this.opts.subscribers?.inc();
    conn.start(this.opts.retryMs ?? 3000);

    let readyWritten!: () => void;
    const ready = new Promise<void>((r) => (readyWritten = r));
    const sub = this.opts.subscriptions.subscribe(
      { from, filter: spec.filter, bufferSize: this.opts.maxBehind ?? DEFAULT_BUFFER_SIZE },
      {
        event: async (event) => {
          await ready;
          const frame = await spec.toFrame(event);
          if (frame) await conn.send(frame);
          if (spec.isTerminal?.(event)) conn.close();
        },
        // too far behind, or the log failed: end; the client reconnects from its last id
        dropped: () => conn.close(),
      },
    );
    const heartbeat = this.timers.setInterval(() => void conn.comment(`heartbeat ${Math.floor(this.opts.clock.now())}`), this.opts.heartbeatMs ?? 15_000);
    const lifetime = this.timers.setTimeout(() => conn.close(), this.opts.maxLifetimeMs ?? 30 * 60_000);
    conn.onClose(() => {
      this.timers.clear(heartbeat);
      this.timers.clear(lifetime);
      release();
      if (this.open.delete(conn)) this.opts.subscribers?.dec();
      void sub.close();
    });
    const start = await sub.started;
    if (spec.ready && conn.isOpen) await conn.send(spec.ready(start));
    if (spec.live && conn.isOpen) conn.onClose(spec.live((frame) => void conn.send(frame)));
    readyWritten();
  }

  /** ends every open stream (shutdown) */
  close(): void {
    for (const c of [...this.open]) c.close();
  }
}

/** Last-Event-ID wins over ?after; neither → null (new events only) */
export function resumeIdOf(request: FastifyRequest): number | null {
  const header = request.headers['last-event-id'];
  const raw = typeof header === 'string' && header.trim() !== '' ? header.trim() : (request.query as Record<string, unknown> | undefined)?.after;
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string' || !/^\d{1,15}$/.test(raw)) throw new SseResumeError('after (or Last-Event-ID) must be a non-negative integer');
  return Number(raw);
}
