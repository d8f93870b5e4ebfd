import { RecordedEvent } from '@strata/domain/events';
import type { EventStore } from '@strata/event-store/event-store.port';
import type { ServerProjection } from '@strata/projections/server/server-projection';

/**
 * Server mode: hands committed events to automatic embedding, run by the projection runner
 * under its own lease so exactly one API replica asks the provider about each node. Events
 * are handed over once the read models show them (the embedder reads nodes and vectors from
 * them). A first start begins at the head of the log: older nodes are POST /ingest/embed-all's.
 */
export class AutoEmbedFeed implements ServerProjection {
  readonly name = 'auto-embed';
  readonly version = 1;
  private skipThrough = 0;
  private interrupted = false;
  private interruptWait: (() => void) | null = null;

  constructor(
    private readonly log: Pick<EventStore, 'headPosition'>,
    private readonly readModelsAt: (position: number) => Promise<boolean>,
    private readonly deliver: (events: RecordedEvent[]) => void,
  ) {}

  async apply(events: RecordedEvent[]): Promise<void> {
    const fresh = events.filter((e) => e.position > this.skipThrough);
    if (!fresh.length) return;
    const last = fresh[fresh.length - 1].position;
    // the runner retries the batch from its checkpoint: nothing is skipped while they lag
    if (!(await this.caughtUp(last))) throw new Error(`the read models have not reached position ${last} yet`);
    this.deliver(fresh);
  }

  /**
   * Shutdown: a batch waiting for the read models (up to its wait, while the worker is down)
   * gives up at once, undelivered, so the replica stops promptly; the next holder of the lease
   * resumes from the checkpoint.
   */
  interrupt(): void {
    this.interrupted = true;
    this.interruptWait?.();
  }

  private caughtUp(position: number): Promise<boolean> {
    if (this.interrupted) return Promise.resolve(false);
    const interrupted = new Promise<boolean>((resolve) => (this.interruptWait = () => resolve(false)));
    return Promise.race([this.readModelsAt(position), interrupted]).finally(() => (this.interruptWait = null));
  }

  async reset(): Promise<void> {
    this.skipThrough = await this.log.headPosition();
  }
}
