import { Injectable } from '@nestjs/common';

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

/**
 * `message.delta` is live only: never logged, never listed, no `seq`. The run publishes the
 * model's text here as it streams and the session's open streams in this process forward it.
 * Nothing is kept: a stream opened later, or on another replica, sees the text only in the
 * recorded `message.assistant` or `inference.completed`.
 */
@Injectable()
export class SessionDeltas {
  private readonly listeners = new Map<string, Set<Listener>>();

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
}
