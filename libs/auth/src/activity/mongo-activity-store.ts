import type { Collection, Db } from 'mongodb';
import { ActivityBatch, ActivityStore, KeyRequest } from './activity-store.port';
import {
  KEY_ACTIVITY_COLLECTION,
  KeyActivityDocument,
  REQUEST_COUNTS_COLLECTION,
  RequestCountDocument,
  activityWrites,
  newestFirst,
  requestCountId,
} from './mongo-activity-documents';

/**
 * Servers mode: request activity in MongoDB, shared by every API replica (document shapes and
 * update rules in mongo-activity-documents.ts). A key's document never holds more than its
 * newest ACTIVITY_LIMIT requests.
 */
export class MongoActivityStore implements ActivityStore {
  private readonly keys: Collection<KeyActivityDocument>;
  private readonly counts: Collection<RequestCountDocument>;

  constructor(db: Db) {
    this.keys = db.collection<KeyActivityDocument>(KEY_ACTIVITY_COLLECTION);
    this.counts = db.collection<RequestCountDocument>(REQUEST_COUNTS_COLLECTION);
  }

  async write(batch: ActivityBatch): Promise<void> {
    const w = activityWrites(batch);
    // unordered: each document's update stands alone, so one failure does not stop the rest
    await Promise.all([
      w.counts.length ? this.counts.bulkWrite(w.counts as never, { ordered: false }) : null,
      w.keys.length ? this.keys.bulkWrite(w.keys as never, { ordered: false }) : null,
    ]);
  }

  async recentRequests(keyId: string, limit: number): Promise<KeyRequest[]> {
    return newestFirst(await this.keys.findOne({ _id: keyId }, { projection: { requests: 1 } }), limit);
  }

  async lastUsedAt(keyIds: string[]): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (!keyIds.length) return out;
    for await (const d of this.keys.find({ _id: { $in: keyIds } }, { projection: { last_used_at: 1 } })) out.set(d._id, d.last_used_at);
    return out;
  }

  async requestsInPeriod(orgId: string, period: string): Promise<number> {
    const d = await this.counts.findOne({ _id: requestCountId(orgId, period) }, { projection: { n: 1 } });
    return d?.n ?? 0;
  }

  /** the MongoDB client belongs to the server storage, which closes it */
  async close(): Promise<void> {}
}
