import { RecordedEvent } from '@strata/domain/events';

/**
 * A projection on the embedded default: applies events synchronously inside the runner's
 * transaction on the projections database, so its data and checkpoint commit together.
 */
export interface EmbeddedProjection {
  readonly name: string;
  /** bump to make the service rebuild this projection */
  readonly version: number;
  apply(event: RecordedEvent): void;
  /** drops every row this projection owns (before a rebuild) */
  reset(): void;
}

/** Status line for `strata projections status`. */
export interface ProjectionStatus {
  name: string;
  version: number;
  stored_version: number | null;
  checkpoint: number;
  head: number;
  lag: number;
  last_error: string | null;
}
