import { RefreshTokenState, decideRefresh } from './refresh-token-decider';

const fresh: RefreshTokenState = { token_id: 't1', family_id: 'f1', user_id: 'u1', expires_at: 2000, used_at: null, family_revoked_at: null };

describe('decideRefresh', () => {
  it('rotates an unused, unexpired token of a live family', () => {
    expect(decideRefresh(fresh, true, 1000)).toEqual({ kind: 'rotate' });
  });
  it('detects reuse of a used token', () => {
    expect(decideRefresh({ ...fresh, used_at: 1100 }, true, 1200)).toEqual({ kind: 'reuse_detected' });
  });
  it('rejects unknown tokens, wrong secrets, expired tokens and revoked families', () => {
    expect(decideRefresh(null, false, 1000)).toEqual({ kind: 'rejected', reason: 'unknown' });
    expect(decideRefresh(fresh, false, 1000)).toEqual({ kind: 'rejected', reason: 'bad_secret' });
    expect(decideRefresh(fresh, true, 2000)).toEqual({ kind: 'rejected', reason: 'expired' });
    expect(decideRefresh({ ...fresh, family_revoked_at: 1500 }, true, 1600)).toEqual({ kind: 'rejected', reason: 'family_revoked' });
  });
  it('a wrong secret never triggers reuse detection (no revocation by guessing ids)', () => {
    expect(decideRefresh({ ...fresh, used_at: 1100 }, false, 1200)).toEqual({ kind: 'rejected', reason: 'bad_secret' });
  });
  it('a used token of a revoked family is rejected, not re-revoked', () => {
    expect(decideRefresh({ ...fresh, used_at: 1100, family_revoked_at: 1150 }, true, 1200)).toEqual({ kind: 'rejected', reason: 'family_revoked' });
  });
});
