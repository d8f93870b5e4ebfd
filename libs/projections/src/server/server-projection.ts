import { RecordedEvent } from '@strata/domain/events';

/**
 * A projection run by the server-mode worker. Batches arrive in log order; a batch may be
 * applied again after a crash (the checkpoint is written after the batch), so `apply` must
 * be idempotent.
 */
export interface ServerProjection {
  readonly name: string;
  /** bump to make the worker rebuild this projection from position 0 */
  readonly version: number;
  apply(events: RecordedEvent[]): Promise<void>;
  /** drops every document this projection owns, in every organization (before a rebuild) */
  reset(): Promise<void>;
}

/** Projections whose checkpoints a server-mode write waits for (read-your-writes). */
export const SERVER_PROJECTION_NAMES = ['graph', 'text', 'vectors'] as const;
