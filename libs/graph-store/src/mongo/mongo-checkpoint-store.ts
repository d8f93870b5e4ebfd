import { Collection, Db } from 'mongodb';
import { CHECKPOINTS_COLLECTION, CheckpointDocument, checkpointAdvance, checkpointReset } from './mongo-documents';
import type { Clock } from '@strata/domain/time';

/**
 * Projection checkpoints in MongoDB, one document per projection (they span every
 * organization, as the log does). Written after the projection's own writes, which are
 * position-guarded: a crash in between only replays writes that change nothing.
 */
export class MongoCheckpointStore {
  readonly collection: Collection<CheckpointDocument>;

  constructor(
    db: Db,
    /** the service's clock: checkpoints say when they moved */
    private readonly clock: Clock,
  ) {
    this.collection = db.collection<CheckpointDocument>(CHECKPOINTS_COLLECTION);
  }

  async get(name: string): Promise<CheckpointDocument | null> {
    return this.collection.findOne({ _id: name });
  }

  async all(): Promise<CheckpointDocument[]> {
    return this.collection.find({}).sort({ _id: 1 }).toArray();
  }

  /** The lowest position among these projections (0 for one that never ran). */
  async lowest(names: readonly string[]): Promise<number> {
    const docs = await this.collection.find({ _id: { $in: [...names] } }, { projection: { position: 1 } }).toArray();
    if (docs.length < names.length) return 0;
    return Math.min(...docs.map((d) => d.position));
  }

  /** false when the stored version is no longer `version` (another build took over). */
  async advance(name: string, version: number, position: number): Promise<boolean> {
    const { filter, update } = checkpointAdvance(name, version, position, this.clock.now());
    const r = await this.collection.updateOne(filter, update);
    return r.matchedCount === 1;
  }

  async reset(name: string, version: number): Promise<void> {
    const doc = checkpointReset(name, version, this.clock.now());
    await this.collection.replaceOne({ _id: name }, doc, { upsert: true });
  }

  async setError(name: string, error: string): Promise<void> {
    await this.collection.updateOne({ _id: name }, { $set: { last_error: error.slice(0, 2000), updated_at: this.clock.now() } });
  }
}
