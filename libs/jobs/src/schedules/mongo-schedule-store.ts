import type { Collection, Db } from 'mongodb';
import { Schedule } from './schedule';
import { ScheduleStore, SlotAdvance } from './schedule-store.port';

export const SCHEDULES_COLLECTION = 'schedules';

/** A schedule in MongoDB, keyed by its id. */
export interface ScheduleDocument extends Omit<Schedule, 'id'> {
  _id: string;
}

const fromDocument = ({ _id, ...rest }: ScheduleDocument): Schedule => ({ id: _id, ...rest });

/**
 * Servers mode: schedules in MongoDB, shared by every replica. The slot compare-and-set is
 * one updateOne matching the slot the caller saw, which MongoDB applies atomically.
 */
export class MongoScheduleStore implements ScheduleStore {
  private readonly schedules: Collection<ScheduleDocument>;
  private indexed: Promise<unknown> | null = null;

  constructor(db: Db) {
    this.schedules = db.collection<ScheduleDocument>(SCHEDULES_COLLECTION);
  }

  private ensureIndexes(): Promise<unknown> {
    this.indexed ??= this.schedules.createIndexes([{ key: { enabled: 1, next_run_at: 1 } }, { key: { org: 1, created_at: 1 } }]);
    return this.indexed;
  }

  async save(s: Schedule): Promise<void> {
    await this.ensureIndexes();
    const { id, ...rest } = s;
    await this.schedules.replaceOne({ _id: id }, { ...rest, job_input: rest.job_input ?? null }, { upsert: true });
  }

  async get(org: string, id: string): Promise<Schedule | null> {
    const d = await this.schedules.findOne({ _id: id, org });
    return d ? fromDocument(d) : null;
  }

  async list(org: string): Promise<Schedule[]> {
    return (await this.schedules.find({ org }).sort({ created_at: 1, _id: 1 }).toArray()).map(fromDocument);
  }

  async remove(org: string, id: string): Promise<boolean> {
    return (await this.schedules.deleteOne({ _id: id, org })).deletedCount === 1;
  }

  async due(now: number, limit: number): Promise<Schedule[]> {
    await this.ensureIndexes();
    const docs = await this.schedules.find({ enabled: true, next_run_at: { $ne: null, $lte: now } }).sort({ next_run_at: 1, _id: 1 }).limit(limit).toArray();
    return docs.map(fromDocument);
  }

  async advance(id: string, change: SlotAdvance, now: number): Promise<boolean> {
    const { expected, next } = change;
    const r = await this.schedules.updateOne(
      { _id: id, enabled: true, last_slot: expected.last_slot, next_run_at: expected.next_run_at },
      { $set: { last_slot: next.last_slot, next_run_at: next.next_run_at, updated_at: now } },
    );
    return r.matchedCount === 1;
  }

  /** the MongoDB client belongs to the server storage, which closes it */
  async close(): Promise<void> {}
}
