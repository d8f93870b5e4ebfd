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
   * write; collections are independent of each other, so they are written in parallel. The
   * membership marks go last: a reader that sees a new mark must also see what it marks.
   */
  async apply(events: RecordedEvent[]): Promise<void> {
    const groups = groupWrites(events);
    const marks = groups.get('membershipMarks');
    groups.delete('membershipMarks');
    await Promise.all([...groups].map(([c, ops]) => this.store.collection(c).bulkWrite(ops, { ordered: true })));
    if (marks) await this.store.collection('membershipMarks').bulkWrite(marks, { ordered: true });
  }

  /** Drops every row of every organization (before a rebuild from position 0). */
  async reset(): Promise<void> {
    await Promise.all((Object.keys(GRAPH_COLLECTIONS) as GraphCollection[]).map((c) => this.store.collection(c).deleteMany({})));
  }
}
