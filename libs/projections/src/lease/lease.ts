/**
 * The projection lease: at most one worker applies a group of projections at a time. Pure
 * rules here; the store (server/mongo-lease-store.ts) reads the lease, asks these functions,
 * and writes the answer back only if the lease is still exactly what it read
 * (compare-and-swap), so two workers deciding at once cannot both win.
 *
 * Times are milliseconds since the epoch.
 */
export interface Lease {
  name: string;
  /** null when released */
  owner: string | null;
  expires_at: number;
  /** +1 every time the lease changes hands: a worker's hold is (owner, epoch) */
  epoch: number;
  acquired_at: number;
}

export interface LeaseTerms {
  /** how long a hold lasts without renewal */
  ttlMs: number;
}

export type AcquireDecision =
  | { outcome: 'acquired'; lease: Lease }
  | { outcome: 'renewed'; lease: Lease }
  | { outcome: 'held'; owner: string; retry_in_ms: number };

export type RenewDecision = { outcome: 'renewed'; lease: Lease } | { outcome: 'lost'; owner: string | null };

/** Whether `current` is held by someone at `now`. */
export function isHeld(current: Lease | null, now: number): current is Lease & { owner: string } {
  return current !== null && current.owner !== null && current.expires_at > now;
}

/**
 * Taking the lease: free, released and expired leases are taken with a new epoch; a live
 * hold of our own is extended (same epoch); a live hold of another worker is respected.
 */
export function decideAcquire(current: Lease | null, name: string, me: string, now: number, terms: LeaseTerms): AcquireDecision {
  if (isHeld(current, now)) {
    if (current.owner !== me) return { outcome: 'held', owner: current.owner, retry_in_ms: current.expires_at - now };
    return { outcome: 'renewed', lease: { ...current, expires_at: now + terms.ttlMs } };
  }
  return {
    outcome: 'acquired',
    lease: { name, owner: me, expires_at: now + terms.ttlMs, epoch: (current?.epoch ?? 0) + 1, acquired_at: now },
  };
}

/**
 * Extending a hold: only while the lease is still ours in the same epoch. A hold that
 * expired but was not taken by anyone is still ours (nobody else can have applied anything).
 */
export function decideRenew(current: Lease | null, me: string, epoch: number, now: number, terms: LeaseTerms): RenewDecision {
  if (!current || current.owner !== me || current.epoch !== epoch) return { outcome: 'lost', owner: current?.owner ?? null };
  return { outcome: 'renewed', lease: { ...current, expires_at: now + terms.ttlMs } };
}

/** Giving the lease up (shutdown): null when it is not ours to give. */
export function decideRelease(current: Lease | null, me: string, epoch: number): Lease | null {
  if (!current || current.owner !== me || current.epoch !== epoch) return null;
  return { ...current, owner: null, expires_at: 0 };
}

/**
 * Whether a worker may still apply events under its hold: it stops a safety margin before
 * expiry, so a paused worker whose lease another took does not write after losing it.
 */
export function mayApply(hold: Pick<Lease, 'expires_at'>, now: number, marginMs: number): boolean {
  return hold.expires_at - marginMs > now;
}

/** How often to renew: three chances before the hold runs out. */
export function renewIntervalMs(terms: LeaseTerms): number {
  return Math.max(1, Math.floor(terms.ttlMs / 3));
}
