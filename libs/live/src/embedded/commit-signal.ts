import type { RecordedEvent } from '@strata/domain/events';

/**
 * Something that tells, after each commit to the embedded log, that new events are readable.
 * The embedded storage is one (its unit of work calls notifyCommitted after each group commit);
 * CommitSignal is one for code that appends to the store directly.
 */
export interface CommitSource {
  onCommitted(listener: (events: RecordedEvent[]) => void): void;
}

export class CommitSignal implements CommitSource {
  private readonly listeners: ((events: RecordedEvent[]) => void)[] = [];
  onCommitted(listener: (events: RecordedEvent[]) => void): void {
    this.listeners.push(listener);
  }
  notifyCommitted(events: RecordedEvent[] = []): void {
    for (const l of this.listeners) l(events);
  }
}
