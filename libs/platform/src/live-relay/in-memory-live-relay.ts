import type { LiveRelay } from './live-relay.port';

type Listener = (channel: string, payload: unknown) => void;

/**
 * The relay of one process: the servers-mode e2e harness shares one between the replicas it
 * runs in process, as MongoDB is shared between real ones. Delivered on a later turn, as a
 * message through a server would be.
 */
export class InMemoryLiveRelay implements LiveRelay {
  private readonly listeners = new Set<Listener>();

  publish(channel: string, payload: unknown): void {
    queueMicrotask(() => {
      for (const l of [...this.listeners]) l(channel, payload);
    });
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
