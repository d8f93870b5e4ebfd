import { Lease, decideAcquire, decideRelease, decideRenew, isHeld, mayApply, renewIntervalMs } from './lease';

const terms = { ttlMs: 15_000 };
const held = (owner: string | null, expires_at: number, epoch = 3): Lease => ({ name: 'projections', owner, expires_at, epoch, acquired_at: 0 });

describe('decideAcquire', () => {
  it('takes a lease nobody ever held, at epoch 1', () => {
    expect(decideAcquire(null, 'projections', 'w1', 1_000, terms)).toEqual({
      outcome: 'acquired',
      lease: { name: 'projections', owner: 'w1', expires_at: 16_000, epoch: 1, acquired_at: 1_000 },
    });
  });

  it('refuses a live hold of another worker and says when to try again', () => {
    expect(decideAcquire(held('w2', 5_000), 'projections', 'w1', 1_000, terms)).toEqual({ outcome: 'held', owner: 'w2', retry_in_ms: 4_000 });
  });

  it('takes an expired hold of another worker with a new epoch', () => {
    const d = decideAcquire(held('w2', 5_000, 7), 'projections', 'w1', 5_000, terms);
    expect(d).toEqual({ outcome: 'acquired', lease: { name: 'projections', owner: 'w1', expires_at: 20_000, epoch: 8, acquired_at: 5_000 } });
  });

  it('takes a released lease with a new epoch', () => {
    expect(decideAcquire(held(null, 0, 2), 'projections', 'w1', 1_000, terms)).toMatchObject({ outcome: 'acquired', lease: { owner: 'w1', epoch: 3 } });
  });

  it('extends a live hold of its own without changing the epoch', () => {
    expect(decideAcquire(held('w1', 5_000, 4), 'projections', 'w1', 1_000, terms)).toEqual({
      outcome: 'renewed',
      lease: { name: 'projections', owner: 'w1', expires_at: 16_000, epoch: 4, acquired_at: 0 },
    });
  });

  it('starts a new epoch when its own hold had expired (it must resume from the checkpoint)', () => {
    expect(decideAcquire(held('w1', 1_000, 4), 'projections', 'w1', 1_000, terms)).toMatchObject({ outcome: 'acquired', lease: { epoch: 5 } });
  });
});

describe('decideRenew', () => {
  it('extends the hold while it is ours in the same epoch', () => {
    expect(decideRenew(held('w1', 5_000, 4), 'w1', 4, 2_000, terms)).toEqual({ outcome: 'renewed', lease: { ...held('w1', 17_000, 4) } });
  });

  it('still extends a hold that expired but that nobody took', () => {
    expect(decideRenew(held('w1', 1_000, 4), 'w1', 4, 2_000, terms)).toMatchObject({ outcome: 'renewed', lease: { expires_at: 17_000 } });
  });

  it('reports the hold lost once another worker took the lease, even if that worker is us in a later epoch', () => {
    expect(decideRenew(held('w2', 30_000, 5), 'w1', 4, 2_000, terms)).toEqual({ outcome: 'lost', owner: 'w2' });
    expect(decideRenew(held('w1', 30_000, 5), 'w1', 4, 2_000, terms)).toEqual({ outcome: 'lost', owner: 'w1' });
    expect(decideRenew(null, 'w1', 4, 2_000, terms)).toEqual({ outcome: 'lost', owner: null });
    expect(decideRenew(held(null, 0, 4), 'w1', 4, 2_000, terms)).toEqual({ outcome: 'lost', owner: null });
  });
});

describe('decideRelease', () => {
  it('frees our own hold so a standby takes over at once', () => {
    const released = decideRelease(held('w1', 9_000, 4), 'w1', 4)!;
    expect(released).toMatchObject({ owner: null, expires_at: 0, epoch: 4 });
    expect(isHeld(released, 1)).toBe(false);
    expect(decideAcquire(released, 'projections', 'w2', 1, terms)).toMatchObject({ outcome: 'acquired', lease: { owner: 'w2', epoch: 5 } });
  });

  it('never frees a hold that is not ours', () => {
    expect(decideRelease(held('w2', 9_000, 4), 'w1', 4)).toBeNull();
    expect(decideRelease(held('w1', 9_000, 5), 'w1', 4)).toBeNull();
    expect(decideRelease(null, 'w1', 4)).toBeNull();
  });
});

describe('applying under a hold', () => {
  it('stops a safety margin before expiry', () => {
    expect(mayApply({ expires_at: 10_000 }, 6_000, 3_000)).toBe(true);
    expect(mayApply({ expires_at: 10_000 }, 7_000, 3_000)).toBe(false);
    expect(mayApply({ expires_at: 10_000 }, 12_000, 0)).toBe(false);
  });

  it('renews three times per lease lifetime', () => {
    expect(renewIntervalMs({ ttlMs: 15_000 })).toBe(5_000);
  });

  it('never lets two workers hold the lease at the same moment', () => {
    // w1 takes it, w2 is refused until expiry, then w2 takes it and w1 can no longer renew
    let lease: Lease | null = null;
    const a = decideAcquire(lease, 'projections', 'w1', 0, terms);
    lease = a.outcome === 'held' ? lease : a.lease;
    for (let t = 0; t < 15_000; t += 1_000) expect(decideAcquire(lease, 'projections', 'w2', t, terms).outcome).toBe('held');
    const b = decideAcquire(lease, 'projections', 'w2', 15_000, terms);
    expect(b.outcome).toBe('acquired');
    lease = b.outcome === 'held' ? lease : b.lease;
    expect(decideRenew(lease, 'w1', 1, 15_001, terms).outcome).toBe('lost');
    expect(decideRenew(lease, 'w2', 2, 15_001, terms).outcome).toBe('renewed');
  });
});
