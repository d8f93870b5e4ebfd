import { Inject, Injectable, OnModuleDestroy, Optional } from '@nestjs/common';
import { ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import type { LiveRelay } from '@strata/platform/live-relay/live-relay.port';

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
/** the relay channel of who listens to which session (streams opened and closed) */
const PRESENCE = 'agent-session-listeners';

interface Relayed {
  /** the process that published it (its own streams had it at once) */
  origin: string;
  session_id: string;
  delta: SessionDelta;
}

/**
 * `listen`/`unlisten`: the origin's first stream of the session opened, its last closed;
 * `hello`: the origin just started listening to the relay, others say what they listen to.
 */
interface Presence {
  origin: string;
  kind: 'listen' | 'unlisten' | 'hello';
  session_id: string | null;
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
  private readonly relay: LiveRelay | null;
  private readonly stopRelay: (() => void) | null = null;
  /** the other replicas with a stream open on each session, as they announced it on the relay */
  private readonly remote = new Map<string, Set<string>>();

  constructor(
    @Optional() @Inject(SERVER_STORAGE) server: ServerStores | null,
    @Inject(ID_GENERATOR) ids: IdGenerator,
  ) {
    this.origin = ids.uuid();
    this.relay = server?.liveRelay ?? null;
    if (this.relay) {
      this.stopRelay = this.relay.subscribe((channel, payload) => {
        if (channel === CHANNEL) {
          const m = payload as Relayed;
          if (m.origin !== this.origin) this.deliver(m.session_id, m.delta);
        } else if (channel === PRESENCE) this.onPresence(payload as Presence);
      });
      // replicas already running say which sessions they have streams open on
      this.announce('hello', null);
    }
  }

  private announce(kind: Presence['kind'], sessionId: string | null): void {
    this.relay?.publish(PRESENCE, { origin: this.origin, kind, session_id: sessionId } satisfies Presence);
  }

  private onPresence(p: Presence): void {
    if (p.origin === this.origin) return;
    if (p.kind === 'hello') {
      for (const sid of this.listeners.keys()) this.announce('listen', sid);
      return;
    }
    const sid = p.session_id!;
    let set = this.remote.get(sid);
    if (p.kind === 'listen') {
      if (!set) this.remote.set(sid, (set = new Set()));
      set.add(p.origin);
    } else if (set) {
      set.delete(p.origin);
      if (set.size === 0) this.remote.delete(sid);
    }
  }

  /** listens to one session's deltas; returns what stops it */
  listen(sessionId: string, listener: Listener): () => void {
    let set = this.listeners.get(sessionId);
    if (!set) {
      this.listeners.set(sessionId, (set = new Set()));
      this.announce('listen', sessionId);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.listeners.get(sessionId) === set) {
        this.listeners.delete(sessionId);
        this.announce('unlisten', sessionId);
      }
    };
  }

  /**
   * To this process's streams of the session, and through the relay only when another replica
   * said it has one open (nothing else reads a relayed delta: no write for a session nobody
   * else watches). A stream opened on another replica gets the text from when this replica
   * heard its `listen` (one relay hop after it opened, about when its `ready` reaches the
   * client); a replica that stopped without saying `unlisten` only costs writes, never text.
   */
  publish(sessionId: string, d: SessionDelta): void {
    this.deliver(sessionId, d);
    if (this.relay && this.remote.has(sessionId)) this.relay.publish(CHANNEL, { origin: this.origin, session_id: sessionId, delta: d } satisfies Relayed);
  }

  /** whether a delta of the session goes through the relay now */
  relays(sessionId: string): boolean {
    return this.relay !== null && this.remote.has(sessionId);
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
