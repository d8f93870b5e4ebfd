import { RecordedEvent } from '@strata/domain/events';
import { ServerProjection } from './server-projection';

/** Writes graph events into a read model (MongoGraphWriter in production): idempotent, position-guarded. */
export interface GraphWriterPort {
  apply(events: RecordedEvent[]): Promise<void>;
  /** drops every row of every organization */
  reset(): Promise<void>;
}

/** The graph read model (MongoDB). Same name and version as the embedded graph projection. */
export class GraphServerProjection implements ServerProjection {
  readonly name = 'graph';
  readonly version = 1;

  constructor(private readonly writer: GraphWriterPort) {}

  apply(events: RecordedEvent[]): Promise<void> {
    return this.writer.apply(events);
  }
  reset(): Promise<void> {
    return this.writer.reset();
  }
}
