import { Collection, Db, MongoServerError } from 'mongodb';
import { AcquireDecision, Lease, LeaseTerms, RenewDecision, decideAcquire, decideRelease, decideRenew } from '../lease/lease';
import type { Clock } from '@strata/domain/time';

export const LEASES_COLLECTION = 'leases';

interface LeaseDocument {
  _id: string;
  owner: string | null;
  expires_at: number;
  epoch: number;
  acquired_at: number;
}

/**
 * Leases in MongoDB: read, decide (lease.ts), then write with findOneAndUpdate only if the
 * document is still exactly what was read. A worker that loses that race simply reads again.
 */
export class MongoLeaseStore {
  private readonly leases: Collection<LeaseDocument>;

  constructor(
    db: Db,
    readonly terms: LeaseTerms,
    /** the service's clock: leases expire on it */
    private readonly clock: Clock,
  ) {
    this.leases = db.collection<LeaseDocument>(LEASES_COLLECTION);
  }

  private nowMs(): number {
    return this.clock.now() * 1000;
  }

  async read(name: string): Promise<Lease | null> {
    const d = await this.leases.findOne({ _id: name });
    return d ? { name: d._id, owner: d.owner, expires_at: d.expires_at, epoch: d.epoch, acquired_at: d.acquired_at } : null;
  }

  async acquire(name: string, me: string): Promise<AcquireDecision> {
    for (;;) {
      const current = await this.read(name);
      const decision = decideAcquire(current, name, me, this.nowMs(), this.terms);
      if (decision.outcome === 'held') return decision;
      if (await this.swap(current, decision.lease)) return decision;
    }
  }

  async renew(name: string, me: string, epoch: number): Promise<RenewDecision> {
    for (;;) {
      const current = await this.read(name);
      const decision = decideRenew(current, me, epoch, this.nowMs(), this.terms);
      if (decision.outcome === 'lost') return decision;
      if (await this.swap(current, decision.lease)) return decision;
    }
  }

  async release(name: string, me: string, epoch: number): Promise<void> {
    const current = await this.read(name);
    const next = decideRelease(current, me, epoch);
    if (next) await this.swap(current, next);
  }

  /** Writes `next` only if the stored lease is still `current`; false when someone else wrote first. */
  private async swap(current: Lease | null, next: Lease): Promise<boolean> {
    const fields = { owner: next.owner, expires_at: next.expires_at, epoch: next.epoch, acquired_at: next.acquired_at };
    if (!current) {
      try {
        const d = await this.leases.findOneAndUpdate({ _id: next.name }, { $setOnInsert: fields }, { upsert: true, returnDocument: 'after' });
        return d !== null && d.owner === next.owner && d.epoch === next.epoch;
      } catch (err) {
        if (err instanceof MongoServerError && err.code === 11000) return false; // inserted by another worker meanwhile
        throw err;
      }
    }
    const d = await this.leases.findOneAndUpdate(
      { _id: current.name, owner: current.owner, epoch: current.epoch, expires_at: current.expires_at },
      { $set: fields },
      { returnDocument: 'after' },
    );
    return d !== null;
  }
}
