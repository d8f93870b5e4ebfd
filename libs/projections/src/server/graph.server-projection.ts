import { RecordedEvent } from '@strata/domain/events';
import { MongoGraphWriter } from '@strata/graph-store/mongo/mongo-graph-writer';
import { ServerProjection } from './server-projection';

/** The graph read model on MongoDB. Same name and version as the embedded graph projection. */
export class GraphServerProjection implements ServerProjection {
  readonly name = 'graph';
  readonly version = 1;

  constructor(private readonly writer: MongoGraphWriter) {}

  apply(events: RecordedEvent[]): Promise<void> {
    return this.writer.apply(events);
  }
  reset(): Promise<void> {
    return this.writer.reset();
  }
}
