import { Errors } from '../errors';
import type { McpApprovalMode } from './mcp-events';
import type {
  ToolApprovalCancelReason,
  ToolApprovalCancelledData,
  ToolApprovalEventBase,
  ToolApprovalExpiredData,
  ToolApprovalReason,
  ToolApprovalRecord,
  ToolApprovalResolvedData,
  ToolApprovalScope,
} from './approval-events';

/** `approval_timeout_s` of built-in tools, which have no connection (REFERENCE §15.10) */
export const BUILTIN_APPROVAL_TIMEOUT_S = 3600;
export const RESOLUTION_REASON_MAX = 1000;
/** the Approval node's `target_type` of a tool approval: never resolved through graph routes */
export const TOOL_APPROVAL_TARGET_TYPES: readonly string[] = ['mcp_tool', 'builtin_tool'];

/** What governance said about one tool call before it runs. */
export type ToolCallVerdict = { verdict: 'deny'; policy_uid: string; policy_name: string } | { verdict: 'approval'; reasons: ToolApprovalReason[] } | { verdict: 'run' };

export interface ToolCallGovernance {
  /** the policies' decision; `enforced` false in shadow mode (or when nothing was enforced) */
  policy: { effect: 'allow' | 'deny' | 'require_approval'; enforced: boolean; policy_uid: string | null; policy_name: string | null };
  /** the connection's approval mode and its verdict now; null for a built-in tool */
  mode: { mode: McpApprovalMode; requires: boolean } | null;
  /** an approval with `scope:"session"` already let this tool run in this session */
  sessionApproved: boolean;
}

/**
 * The decision on one tool call (REFERENCE §15.10): an enforced policy `deny` refuses it;
 * else an enforced `require_approval`, or the connection's mode (unless a session-scoped
 * approval already covers the tool), makes an approval; else it runs.
 */
export function decideToolCall(g: ToolCallGovernance): ToolCallVerdict {
  if (g.policy.enforced && g.policy.effect === 'deny') return { verdict: 'deny', policy_uid: g.policy.policy_uid ?? '', policy_name: g.policy.policy_name ?? '' };
  const reasons: ToolApprovalReason[] = [];
  if (g.policy.enforced && g.policy.effect === 'require_approval' && g.policy.policy_uid) reasons.push({ source: 'policy', policy_uid: g.policy.policy_uid });
  if (g.mode && g.mode.requires && !g.sessionApproved) reasons.push({ source: g.mode.mode === 'per_tool' ? 'per_tool' : g.mode.mode === 'on_drift' ? 'drift' : 'connection_mode' });
  return reasons.length ? { verdict: 'approval', reasons } : { verdict: 'run' };
}

export interface ResolveInput {
  decision: 'approved' | 'denied';
  reason: string | null;
  scope: ToolApprovalScope;
}

/** `{decision:"allow"|"deny" (aliases "approve"/"reject"), reason? (≤ 1000), scope?:"once"|"session"}` */
export function readResolveInput(body: Record<string, unknown>): ResolveInput {
  const raw = body.decision;
  if (raw === undefined || raw === null || raw === '') throw Errors.missingField('decision');
  const decision = raw === 'allow' || raw === 'approve' ? 'approved' : raw === 'deny' || raw === 'reject' ? 'denied' : null;
  if (!decision) throw Errors.invalidField('decision', 'decision must be "allow" or "deny" (or "approve"/"reject")');
  let reason: string | null = null;
  if (body.reason !== undefined && body.reason !== null) {
    if (typeof body.reason !== 'string' || body.reason.length > RESOLUTION_REASON_MAX) throw Errors.invalidField('reason', `reason must be a string of at most ${RESOLUTION_REASON_MAX} characters`);
    reason = body.reason;
  }
  const scope = body.scope ?? 'once';
  if (scope !== 'once' && scope !== 'session') throw Errors.invalidField('scope', 'scope must be "once" or "session"');
  return { decision, reason, scope };
}

function baseOf(a: ToolApprovalRecord, now: number): ToolApprovalEventBase {
  return { org_id: a.org_id, approval_id: a.id, agent_id: a.agent_id, session_id: a.session_id, run_id: a.run_id, tool_call_id: a.tool_call_id, connection_id: a.connection_id, at: now };
}

function assertPending(a: ToolApprovalRecord, now: number): void {
  const status = approvalAt(a, now).status;
  if (status !== 'pending') throw Errors.invalidTransition(`approval ${a.id} is ${status}; only a pending approval can be resolved`, status, []);
}

/** pending → approved | denied; anything else (an expiry already due included) is 409 `invalid_transition`. */
export function decideResolve(a: ToolApprovalRecord, input: ResolveInput, by: { kind: string; id: string }, now: number): ToolApprovalResolvedData {
  assertPending(a, now);
  return { ...baseOf(a, now), status: input.decision, resolved_by: by, reason: input.reason, scope: input.decision === 'approved' ? input.scope : 'once' };
}

/** whether a pending approval's `expires_at` has come: it is expired from that instant on */
export function expiredAt(a: Pick<ToolApprovalRecord, 'status' | 'expires_at'>, now: number): boolean {
  return a.status === 'pending' && a.expires_at <= now;
}

/**
 * The approval as it stands at `now` (REFERENCE §15.10): a pending one whose `expires_at` has
 * come reads as expired at that very instant, before the sweep's `ToolApprovalExpired` records
 * it, so every route and the runtime agree on the deadline to the second whatever the sweep's
 * pace. The event, when it lands, says the same (`resolved_at` = `expires_at`).
 */
export function approvalAt(a: ToolApprovalRecord, now: number): ToolApprovalRecord {
  return expiredAt(a, now) ? { ...a, status: 'expired', resolved_at: a.expires_at, resolved_by: { kind: 'system', id: 'system' }, resolution_reason: 'expired', scope: 'once' } : a;
}

/** pending and past `expires_at` → expired, dated at `expires_at` (when it expired, not when it was written); otherwise nothing. */
export function decideExpire(a: ToolApprovalRecord, now: number): ToolApprovalExpiredData | null {
  return expiredAt(a, now) ? baseOf(a, a.expires_at) : null;
}

/** pending → cancelled (interrupt, archive, pause, connection DELETE); otherwise nothing. */
export function decideCancel(a: ToolApprovalRecord, reason: ToolApprovalCancelReason, now: number): ToolApprovalCancelledData | null {
  return a.status === 'pending' ? { ...baseOf(a, now), reason } : null;
}

/** The record after a resolution, an expiry or a cancellation. */
export function settledApproval(
  a: ToolApprovalRecord,
  e: { type: 'ToolApprovalResolved'; data: ToolApprovalResolvedData } | { type: 'ToolApprovalExpired'; data: ToolApprovalExpiredData } | { type: 'ToolApprovalCancelled'; data: ToolApprovalCancelledData },
): ToolApprovalRecord {
  if (a.status !== 'pending') return a;
  switch (e.type) {
    case 'ToolApprovalResolved':
      return { ...a, status: e.data.status, resolved_at: e.data.at, resolved_by: e.data.resolved_by, resolution_reason: e.data.reason, scope: e.data.scope };
    case 'ToolApprovalExpired':
      return { ...a, status: 'expired', resolved_at: e.data.at, resolved_by: { kind: 'system', id: 'system' }, resolution_reason: 'expired' };
    case 'ToolApprovalCancelled':
      return { ...a, status: 'cancelled', resolved_at: e.data.at, resolved_by: { kind: 'system', id: 'system' }, resolution_reason: e.data.reason };
  }
}

/**
 * The Approval node's props after a settlement (REFERENCE §15.10): `approved`/`denied`, and
 * `expired`/`cancelled` written as `denied` with that reason.
 */
export function approvalNodeResolution(a: ToolApprovalRecord): { status: 'approved' | 'denied'; decided_at: number; decided_by: string; reason: string } {
  const who = a.resolved_by ? (a.resolved_by.kind === 'system' ? 'system' : `${a.resolved_by.kind}:${a.resolved_by.id}`) : 'system';
  const reason = a.status === 'approved' || a.status === 'denied' ? (a.resolution_reason ?? a.status) : a.status === 'cancelled' ? `cancelled: ${a.resolution_reason ?? ''}`.trim() : 'expired';
  return { status: a.status === 'approved' ? 'approved' : 'denied', decided_at: a.resolved_at ?? 0, decided_by: who, reason };
}

/** The tool error a model gets for a call that did not run, or null when it runs (approved). */
export function approvalOutcomeError(a: Pick<ToolApprovalRecord, 'status' | 'resolution_reason'>): { code: 'approval_denied' | 'approval_expired'; message: string } | null {
  if (a.status === 'denied') return { code: 'approval_denied', message: a.resolution_reason ? `a person denied this call: ${a.resolution_reason}` : 'a person denied this call' };
  if (a.status === 'expired') return { code: 'approval_expired', message: 'nobody approved this call in time' };
  return null;
}
