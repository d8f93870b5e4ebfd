import { RecordedEvent } from '@strata/domain/events';
import { GRAPH_COLLECTIONS, GraphCollection, groupWrites } from './mongo-documents';
import { MongoGraphStore } from './mongo-graph-store';

/**
 * Applies graph events to the MongoDB read model: the same effects as SqliteGraphWriter.
 * Every write is an upsert or delete guarded by log position (see mongo-documents.ts), so
 * applying a batch again, or an older batch after a newer one, changes nothing.
 */
export class MongoGraphWriter {
  constructor(private readonly store: MongoGraphStore) {}

  /**
   * Applies `events` (in log order). Each collection receives its writes as one ordered bulk
   * write; collections are independent of each other, so they are written in parallel.
   */
  async apply(events: RecordedEvent[]): Promise<void> {
    const groups = groupWrites(events);
    await Promise.all([...groups].map(([c, ops]) => this.store.collection(c).bulkWrite(ops, { ordered: true })));
  }

  /** Drops every row of every organization (before a rebuild from position 0). */
  async reset(): Promise<void> {
    await Promise.all((Object.keys(GRAPH_COLLECTIONS) as GraphCollection[]).map((c) => this.store.collection(c).deleteMany({})));
  }
}
