import { DomainError, Errors } from '../errors';

/**
 * API-key lifecycle (pure): active → rotated (old key works until `overlap_until`) and
 * active/rotated → revoked (at once). Expiry is a time, not an event.
 */
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

export type KeyStatus = 'active' | 'rotating' | 'rotated' | 'expired' | 'revoked';

export interface KeyLifecycle {
  expires_at: number | null;
  revoked_at: number | null;
  /** set once rotated */
  overlap_until: number | null;
}

export function keyStatus(k: KeyLifecycle, now: number): KeyStatus {
  if (k.revoked_at !== null) return 'revoked';
  if (k.expires_at !== null && now >= k.expires_at) return 'expired';
  if (k.overlap_until !== null) return now < k.overlap_until ? 'rotating' : 'rotated';
  return 'active';
}

export type KeyAccess = { ok: true; valid_until: number | null } | { ok: false; reason: 'revoked' | 'expired' | 'rotated' };

/** Whether a presented key may be used now; `valid_until` bounds how long that answer holds. */
export function decideKeyAccess(k: KeyLifecycle, now: number): KeyAccess {
  const status = keyStatus(k, now);
  if (status === 'revoked' || status === 'expired' || status === 'rotated') return { ok: false, reason: status };
  const bounds = [k.expires_at, k.overlap_until].filter((x): x is number => x !== null);
  return { ok: true, valid_until: bounds.length ? Math.min(...bounds) : null };
}

/** Rotation: only a key that is still usable and not already rotated; overlap ≤ 7 days. */
export function decideRotate(k: KeyLifecycle, overlapSeconds: number, now: number): { overlap_until: number } {
  if (!Number.isFinite(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_ROTATION_OVERLAP_SECONDS)
    throw Errors.invalidField('overlap_seconds', `overlap_seconds must be from 0 to ${MAX_ROTATION_OVERLAP_SECONDS} (7 days)`);
  const status = keyStatus(k, now);
  if (status !== 'active') throw Errors.invalidTransition(`a ${status} key cannot be rotated`, status, ['active']);
  const until = now + overlapSeconds;
  return { overlap_until: k.expires_at !== null ? Math.min(until, k.expires_at) : until };
}

/**
 * Expiry of the replacement: the old key's own `expires_at`. A rotation swaps the secret under
 * the same policy; it never extends the time the credential was granted for.
 */
/** A new key's expiry must lie ahead of now: a key born expired would only confuse. */
export function decideKeyExpiry(expiresAt: number | null, now: number): number | null {
  if (expiresAt !== null && expiresAt <= now) throw Errors.invalidField('expires_at', 'expires_at must be in the future');
  return expiresAt;
}

export function replacementExpiry(old: { expires_at: number | null }): number | null {
  return old.expires_at;
}

/**
 * Agent ids a key may not be bound to. `"system"` is the principal of server processes
 * (REFERENCE §1.6) and `kind:id` is how audit names principals, so a key bound to either would
 * be read as someone else in history and audit. Case-insensitive.
 */
const RESERVED_AGENT_ID_RE = /^(system|(system|user|api_key|agent):.*)$/i;

/**
 * The agent a new key is bound to. A bound agent is attribution only (the key stays the acting
 * principal), and it must not pass for a principal: not a reserved id, and not the id of a
 * user or an API key (`isPrincipalId`). Nor an archived managed agent (`isArchivedAgent`):
 * archiving revoked its keys, and a new one would act for it again (REFERENCE §16.13).
 */
export function decideAgentBinding(agentId: string, isPrincipalId: (id: string) => boolean, isArchivedAgent: (id: string) => boolean = () => false): string {
  if (RESERVED_AGENT_ID_RE.test(agentId))
    throw Errors.invalidField('agent_id', `agent_id '${agentId}' is reserved: "system" and "<kind>:<id>" name principals, not agents`);
  if (isPrincipalId(agentId)) throw Errors.invalidField('agent_id', 'agent_id must name an agent, not a user or an API key');
  if (isArchivedAgent(agentId)) throw Errors.invalidField('agent_id', `agent ${agentId} is archived: no key can be bound to it`);
  return agentId;
}

/** Revocation is idempotent: false when already revoked. */
export function decideRevoke(k: KeyLifecycle): boolean {
  return k.revoked_at === null;
}

export function keyNotFound(id: string): DomainError {
  return Errors.notFound(`API key ${id} not found`, { id });
}
