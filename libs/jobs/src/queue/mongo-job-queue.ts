import type { Collection, Db } from 'mongodb';
import { Clock, IdGenerator } from '@strata/domain/time';
import { EnqueueRequest, JobQueue, LeaseState, QueueActivity, QueuedJob, QueuedJobStatus } from './job-queue.port';

export const QUEUED_JOBS_COLLECTION = 'queued_jobs';
/** payloads apart from the jobs, so that reading a job never loads its payload */
export const QUEUED_JOB_PAYLOADS_COLLECTION = 'queued_job_payloads';

/** A queued job in MongoDB, keyed by its id. */
export interface QueuedJobDocument extends Omit<QueuedJob, 'id'> {
  _id: string;
  /**
   * `org kind key` while a job with a dedupe key is pending or running, absent otherwise: a
   * unique sparse index on it makes enqueueing with a dedupe key atomic across replicas.
   */
  active_key?: string;
}

const activeKey = (org: string, kind: string, key: string) => JSON.stringify([org, kind, key]);

function fromDocument(d: QueuedJobDocument): QueuedJob {
  const { _id, active_key: _key, ...rest } = d;
  return { id: _id, ...rest };
}

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

/**
 * Servers mode: the job queue in MongoDB, shared by every replica. A claim is one
 * findOneAndUpdate on the oldest runnable job, which MongoDB applies atomically per document,
 * so two replicas never take the same job. Writes by a runner match on its owner, so they
 * only apply while it holds the job.
 */
export class MongoJobQueue implements JobQueue {
  private readonly jobs: Collection<QueuedJobDocument>;
  private readonly payloads: Collection<{ _id: string; payload: string }>;
  private indexed: Promise<unknown> | null = null;

  constructor(
    db: Db,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {
    this.jobs = db.collection<QueuedJobDocument>(QUEUED_JOBS_COLLECTION);
    this.payloads = db.collection<{ _id: string; payload: string }>(QUEUED_JOB_PAYLOADS_COLLECTION);
  }

  private ensureIndexes(): Promise<unknown> {
    this.indexed ??= this.jobs.createIndexes([
      { key: { status: 1, kind: 1, created_at: 1 } },
      { key: { org: 1, created_at: 1 } },
      { key: { finished_at: 1 } },
      { key: { active_key: 1 }, unique: true, sparse: true },
      { key: { org: 1, serial_group: 1, status: 1, created_at: 1 } },
    ]);
    return this.indexed;
  }

  private held(id: string, owner: string) {
    return { _id: id, owner, status: 'running' as const };
  }

  async enqueue(req: EnqueueRequest): Promise<{ job: QueuedJob; created: boolean }> {
    await this.ensureIndexes();
    const now = this.clock.now();
    const doc: QueuedJobDocument = {
      _id: req.id ?? this.ids.uuid(), org: req.org, kind: req.kind, status: 'pending', input: req.input ?? null,
      dedupe_key: req.dedupeKey ?? null, serial_group: req.serialGroup ?? null, attempts: 0, owner: null, lease_until: null, cancel_requested: false,
      progress: req.progress ?? null, checkpoint: null, result: null, error: null, created_at: now, updated_at: now, started_at: null, finished_at: null,
    };
    if (req.dedupeKey !== undefined) doc.active_key = activeKey(req.org, req.kind, req.dedupeKey);
    // the payload first: a runner never claims a job whose payload is not there yet
    if (req.payload !== undefined) await this.payloads.insertOne({ _id: doc._id, payload: req.payload });
    try {
      await this.jobs.insertOne(doc);
      return { job: fromDocument(doc), created: true };
    } catch (err) {
      if (req.payload !== undefined) await this.payloads.deleteOne({ _id: doc._id });
      if (!doc.active_key || !isDuplicateKey(err)) throw err;
      const same = await this.jobs.findOne({ active_key: doc.active_key });
      // finished between the insert and this read: enqueue again
      return same ? { job: fromDocument(same), created: false } : this.enqueue(req);
    }
  }

  async claim(kinds: readonly string[], owner: string, leaseSeconds: number): Promise<QueuedJob | null> {
    if (kinds.length === 0) return null;
    await this.ensureIndexes();
    const now = this.clock.now();
    const runnable = { kind: { $in: [...kinds] }, $or: [{ status: 'pending' as const }, { status: 'running' as const, lease_until: { $lte: now } }] };
    // a pipeline update, so the first start time is kept across claims
    const take = [
      {
        $set: {
          status: 'running', owner: { $literal: owner }, lease_until: now + leaseSeconds, attempts: { $add: ['$attempts', 1] },
          started_at: { $ifNull: ['$started_at', now] }, updated_at: now,
        },
      },
    ];
    // another runner may take the chosen job first: then choose again
    for (let tries = 0; tries < 10; tries++) {
      const free = await this.jobs.find({ ...runnable, serial_group: null }).sort({ created_at: 1, _id: 1 }).limit(1).next();
      const serial = await this.serialCandidate(runnable);
      const pick = free && serial ? (free.created_at <= serial.created_at ? free : serial) : (free ?? serial);
      if (!pick) return null;
      // only the oldest active job of a group is ever runnable, so taking it on the same condition is safe
      const doc = await this.jobs.findOneAndUpdate({ _id: pick._id, ...runnable }, take, { returnDocument: 'after' });
      if (doc) return fromDocument(doc);
    }
    return null;
  }

  /** The oldest runnable job of a serial group whose group holds no older active job. */
  private async serialCandidate(runnable: object): Promise<QueuedJobDocument | null> {
    const candidates = await this.jobs.find({ ...runnable, serial_group: { $ne: null } }).sort({ created_at: 1, _id: 1 }).limit(50).toArray();
    for (const c of candidates) {
      const older = await this.jobs.findOne({
        org: c.org,
        serial_group: c.serial_group,
        status: { $in: ['pending', 'running'] },
        $or: [{ created_at: { $lt: c.created_at } }, { created_at: c.created_at, _id: { $lt: c._id } }],
      });
      if (!older) return c;
    }
    return null;
  }

  async renew(id: string, owner: string, leaseSeconds: number): Promise<LeaseState> {
    const now = this.clock.now();
    const doc = await this.jobs.findOneAndUpdate(this.held(id, owner), { $set: { lease_until: now + leaseSeconds, updated_at: now } }, { returnDocument: 'after' });
    if (!doc) return 'lost';
    return doc.cancel_requested ? 'cancel_requested' : 'held';
  }

  async progress(id: string, owner: string, progress: unknown, checkpoint?: unknown): Promise<boolean> {
    const set: Partial<QueuedJobDocument> = { progress: progress ?? null, updated_at: this.clock.now() };
    if (checkpoint !== undefined) set.checkpoint = checkpoint ?? null;
    return (await this.jobs.updateOne(this.held(id, owner), { $set: set })).matchedCount === 1;
  }

  complete(id: string, owner: string, result: unknown): Promise<boolean> {
    return this.finish(id, owner, 'completed', result ?? null, null);
  }

  fail(id: string, owner: string, error: string): Promise<boolean> {
    return this.finish(id, owner, 'failed', null, error);
  }

  acknowledgeCancel(id: string, owner: string): Promise<boolean> {
    return this.finish(id, owner, 'cancelled', null, null);
  }

  async release(id: string, owner: string): Promise<boolean> {
    const r = await this.jobs.updateOne(this.held(id, owner), { $set: { status: 'pending', owner: null, lease_until: null, updated_at: this.clock.now() } });
    return r.matchedCount === 1;
  }

  async requestCancel(org: string, id: string): Promise<QueuedJob | null> {
    const now = this.clock.now();
    const cancelled = await this.jobs.findOneAndUpdate(
      { _id: id, org, status: 'pending' },
      { $set: { status: 'cancelled', finished_at: now, updated_at: now }, $unset: { active_key: '' } },
      { returnDocument: 'after' },
    );
    if (cancelled) {
      await this.payloads.deleteOne({ _id: id });
      return fromDocument(cancelled);
    }
    const flagged = await this.jobs.findOneAndUpdate({ _id: id, org, status: 'running' }, { $set: { cancel_requested: true, updated_at: now } }, { returnDocument: 'after' });
    if (flagged) return fromDocument(flagged);
    return this.get(org, id);
  }

  async get(org: string, id: string): Promise<QueuedJob | null> {
    const d = await this.jobs.findOne({ _id: id, org });
    return d ? fromDocument(d) : null;
  }

  async payload(id: string): Promise<string | null> {
    const job = await this.jobs.findOne({ _id: id }, { projection: { finished_at: 1 } });
    if (!job || job.finished_at !== null) return null;
    return (await this.payloads.findOne({ _id: id }))?.payload ?? null;
  }

  async list(org: string, filter: { kind?: string; status?: QueuedJobStatus } = {}): Promise<QueuedJob[]> {
    const q: Record<string, unknown> = { org };
    if (filter.kind !== undefined) q.kind = filter.kind;
    if (filter.status !== undefined) q.status = filter.status;
    return (await this.jobs.find(q).sort({ created_at: 1, _id: 1 }).toArray()).map(fromDocument);
  }

  async activity(): Promise<QueueActivity[]> {
    const rows = await this.jobs
      .aggregate<{ _id: { kind: string; status: 'pending' | 'running' }; count: number; oldest: number }>([
        { $match: { status: { $in: ['pending', 'running'] } } },
        { $group: { _id: { kind: '$kind', status: '$status' }, count: { $sum: 1 }, oldest: { $min: '$created_at' } } },
      ])
      .toArray();
    return rows.map((r) => ({ kind: r._id.kind, status: r._id.status, count: r.count, oldest_created_at: r.oldest }));
  }

  async removeFinishedBefore(cutoff: number): Promise<number> {
    const gone = await this.jobs.find({ finished_at: { $ne: null, $lt: cutoff } }, { projection: { _id: 1 } }).toArray();
    if (gone.length) await this.payloads.deleteMany({ _id: { $in: gone.map((d) => d._id) } });
    return (await this.jobs.deleteMany({ finished_at: { $ne: null, $lt: cutoff } })).deletedCount;
  }

  async removeFinishedOf(org: string, kinds: readonly string[]): Promise<number> {
    if (kinds.length === 0) return 0;
    const which = { org, kind: { $in: [...kinds] }, finished_at: { $ne: null } };
    const gone = await this.jobs.find(which, { projection: { _id: 1 } }).toArray();
    if (gone.length) await this.payloads.deleteMany({ _id: { $in: gone.map((d) => d._id) } });
    return (await this.jobs.deleteMany(which)).deletedCount;
  }

  /** the MongoDB client belongs to the server storage, which closes it */
  async close(): Promise<void> {}

  private async finish(id: string, owner: string, status: QueuedJobStatus, result: unknown, error: string | null): Promise<boolean> {
    const now = this.clock.now();
    const r = await this.jobs.updateOne(this.held(id, owner), {
      $set: { status, result, error, owner: null, lease_until: null, finished_at: now, updated_at: now },
      $unset: { active_key: '' },
    });
    // a finished job is never run again: its payload is dead weight
    if (r.matchedCount === 1) await this.payloads.deleteOne({ _id: id });
    return r.matchedCount === 1;
  }
}
