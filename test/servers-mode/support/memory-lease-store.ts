import { AcquireDecision, Lease, LeaseTerms, RenewDecision, decideAcquire, decideRelease, decideRenew } from '@strata/projections/lease/lease';
import type { Clock } from '@strata/domain/time';
import type { LeaseStorePort } from '@strata/projections/server/server-projection-runner';

/**
 * The lease port in memory, over the same pure rules as MongoLeaseStore (lease.ts). Its
 * compare-and-swap is trivially atomic: a decision and its write happen in one synchronous
 * step. One `LeaseTable` is shared by every worker of a test, as the MongoDB collection is.
 */
export class LeaseTable {
  readonly rows = new Map<string, Lease>();
  /** who asked for a lease, in order (a test sees a standby has had its turn) */
  readonly acquisitions: string[] = [];

  store(terms: LeaseTerms, clock: Clock): LeaseStorePort {
    const rows = this.rows;
    const acquisitions = this.acquisitions;
    const now = () => clock.now() * 1000;
    return {
      terms,
      async acquire(name: string, me: string): Promise<AcquireDecision> {
        acquisitions.push(me);
        const d = decideAcquire(rows.get(name) ?? null, name, me, now(), terms);
        if (d.outcome !== 'held') rows.set(name, d.lease);
        return d;
      },
      async renew(name: string, me: string, epoch: number): Promise<RenewDecision> {
        const d = decideRenew(rows.get(name) ?? null, me, epoch, now(), terms);
        if (d.outcome === 'renewed') rows.set(name, d.lease);
        return d;
      },
      async release(name: string, me: string, epoch: number): Promise<void> {
        const next = decideRelease(rows.get(name) ?? null, me, epoch);
        if (next) rows.set(name, next);
      },
    };
  }
}
