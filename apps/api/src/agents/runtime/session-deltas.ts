import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { ServerStores } from '@strata/platform/storage/server-stores';

/** One piece of streamed assistant text (REFERENCE §16.9 `message.delta`). */
export interface SessionDelta {
  run_id: string;
  message_id: string;
  step: number;
  delta: string;
  /** Unix seconds */
  at: number;
}

type Listener = (d: SessionDelta) => void;

/** the relay channel of streamed text */
const CHANNEL = 'agent-session-delta';

interface Relayed {
  /** the process that published it (its own streams had it at once) */
  origin: string;
  session_id: string;
  delta: SessionDelta;
}

/**
 * `message.delta` is live only: never logged, never listed, no `seq`. The run publishes the
 * model's text here as it streams and the session's open streams forward it. Nothing is kept:
 * a stream opened later sees the text only in the recorded `message.assistant` or
 * `inference.completed`.
 *
 * Servers mode: a session's streams may be open on any replica, and the run on any other (the
 * replica that claimed its job). The text also goes through the replicas' live relay (a
 * capped MongoDB collection, `LiveRelay`), and each replica hands what others published to
 * its own streams of that session; a replica's own streams get its text directly.
 */
@Injectable()
export class SessionDeltas implements OnModuleDestroy {
  private readonly listeners = new Map<string, Set<Listener>>();
  private readonly origin: string;
  private readonly stopRelay: (() => void) | null = null;

  constructor(
    @Optional() @Inject(SERVER_STORAGE) private readonly server: ServerStores | null,
    @Inject(ID_GENERATOR) ids: IdGenerator,
  ) {
    this.origin = ids.uuid();
    const relay = server?.liveRelay;
    if (relay)
      this.stopRelay = relay.subscribe((channel, payload) => {
        const m = payload as Relayed;
        if (channel === CHANNEL && m.origin !== this.origin) this.deliver(m.session_id, m.delta);
      });
  }

  /** listens to one session's deltas; returns what stops it */
  listen(sessionId: string, listener: Listener): () => void {
    let set = this.listeners.get(sessionId);
    if (!set) this.listeners.set(sessionId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(sessionId) === set) this.listeners.delete(sessionId);
    };
  }

  publish(sessionId: string, d: SessionDelta): void {
    this.deliver(sessionId, d);
    this.server?.liveRelay?.publish(CHANNEL, { origin: this.origin, session_id: sessionId, delta: d } satisfies Relayed);
  }

  private deliver(sessionId: string, d: SessionDelta): void {
    const set = this.listeners.get(sessionId);
    if (!set) return;
    for (const l of [...set]) {
      try {
        l(d);
      } catch {
        // a stream that failed to write closes on its own; the run goes on
      }
    }
  }

  onModuleDestroy(): void {
    this.stopRelay?.();
  }
}
