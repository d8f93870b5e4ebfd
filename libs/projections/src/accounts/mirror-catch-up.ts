import { DomainError } from '@strata/domain/errors';
import type { EventStore } from '@strata/event-store/event-store.port';
import type { AccountsMirror } from './accounts-mirror';

/** How long a request or a job waits for this replica's mirror before answering 503. */
const CATCH_UP_MS = 10_000;

/**
 * Servers mode: an area whose read model lives in this replica's log mirror waits for the
 * mirror before deciding on it. A job claimed from the shared queue may have been queued by
 * another replica, whose events this mirror has not applied yet. Embedded (no mirror): no-ops.
 */
export class MirrorCatchUp {
  constructor(
    private readonly mirror: AccountsMirror | null,
    private readonly events: Pick<EventStore, 'headPosition'> | null,
    /** what the 503 names: "the agents read model" */
    private readonly what: string,
  ) {}

  /** Waits until the mirror shows the log as it is now; 503 `unavailable` if it stays behind. */
  async catchUp(): Promise<void> {
    if (!this.mirror || !this.events) return;
    const head = await this.events.headPosition();
    if (!(await this.mirror.waitFor(head, CATCH_UP_MS))) throw new DomainError(503, 'unavailable', `${this.what} is behind the log`, { retry_after: 1 });
  }

  /** Resolves once the mirror has applied the log up to `position` (at once without a mirror). */
  async shows(position: number): Promise<void> {
    if (this.mirror) await this.mirror.waitFor(position, CATCH_UP_MS);
  }
}
