/**
 * Refresh-token rotation with reuse detection (pure). Every refresh token belongs to a
 * family started at sign-in; using one issues its successor in the same family. Presenting a
 * token that was already used means it leaked (or a client raced itself): the whole family is
 * revoked, so both the thief's and the owner's sessions end.
 */
export interface RefreshTokenState {
  token_id: string;
  family_id: string;
  user_id: string;
  expires_at: number;
  used_at: number | null;
  family_revoked_at: number | null;
}

export type RefreshDecision =
  | { kind: 'rotate' }
  /** already used: revoke the family */
  | { kind: 'reuse_detected' }
  | { kind: 'rejected'; reason: 'unknown' | 'expired' | 'family_revoked' | 'bad_secret' };

export function decideRefresh(state: RefreshTokenState | null, secretMatches: boolean, now: number): RefreshDecision {
  if (!state) return { kind: 'rejected', reason: 'unknown' };
  if (!secretMatches) return { kind: 'rejected', reason: 'bad_secret' };
  if (state.family_revoked_at !== null) return { kind: 'rejected', reason: 'family_revoked' };
  if (state.used_at !== null) return { kind: 'reuse_detected' };
  if (now >= state.expires_at) return { kind: 'rejected', reason: 'expired' };
  return { kind: 'rotate' };
}
