/**
 * Live-only messages between the API replicas of servers mode: what one replica publishes,
 * every replica's subscribers receive (itself included). Nothing is logged or kept beyond a
 * short window: a message is for whoever listens now (streamed model text, `message.delta`).
 */
export interface LiveRelay {
  publish(channel: string, payload: unknown): void;
  /** returns what stops listening */
  subscribe(listener: (channel: string, payload: unknown) => void): () => void;
  close(): Promise<void>;
}
