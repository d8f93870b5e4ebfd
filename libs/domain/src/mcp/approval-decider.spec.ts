import { DomainError } from '../errors';
import { ToolApprovalRecord } from './approval-events';
import { approvalAt, approvalNodeResolution, approvalOutcomeError, decideCancel, decideExpire, decideResolve, decideToolCall, readResolveInput, settledApproval } from './approval-decider';

const allow = { effect: 'allow' as const, enforced: false, policy_uid: null, policy_name: null };

function pending(over: Partial<ToolApprovalRecord> = {}): ToolApprovalRecord {
  return {
    id: 'ap1', org_id: 'o', status: 'pending', kind: 'mcp_tool', connection_id: 'c1', connection_name: 'Tools', tool_name: 'add', model_name: 'mcp__tools__add',
    affordance_uid: 'aff', arguments: { a: 1 }, reasons: [{ source: 'connection_mode' }], agent_id: 'ag', agent_name: 'A', session_id: 's', run_id: 'r', tool_call_id: 'tc',
    requested_at: 100, expires_at: 160, resolved_at: null, resolved_by: null, resolution_reason: null, scope: 'once', ...over,
  };
}

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return `${(e as DomainError).status} ${(e as DomainError).code}`;
  }
  return 'no error';
}

describe('decideToolCall (REFERENCE §15.10)', () => {
  it('an enforced deny refuses, whatever the mode says', () => {
    expect(decideToolCall({ policy: { effect: 'deny', enforced: true, policy_uid: 'p', policy_name: 'No' }, mode: { mode: 'always', requires: true }, sessionApproved: false })).toEqual({ verdict: 'deny', policy_uid: 'p', policy_name: 'No' });
  });
  it('require_approval or the mode makes an approval, with every reason', () => {
    expect(decideToolCall({ policy: { effect: 'require_approval', enforced: true, policy_uid: 'p', policy_name: 'Ask' }, mode: { mode: 'per_tool', requires: true }, sessionApproved: false })).toEqual({
      verdict: 'approval',
      reasons: [{ source: 'policy', policy_uid: 'p' }, { source: 'per_tool' }],
    });
    expect(decideToolCall({ policy: allow, mode: { mode: 'always', requires: true }, sessionApproved: false })).toEqual({ verdict: 'approval', reasons: [{ source: 'connection_mode' }] });
    expect(decideToolCall({ policy: allow, mode: { mode: 'on_drift', requires: true }, sessionApproved: false })).toEqual({ verdict: 'approval', reasons: [{ source: 'drift' }] });
  });
  it('a session-scoped approval skips the mode, never a policy', () => {
    expect(decideToolCall({ policy: allow, mode: { mode: 'always', requires: true }, sessionApproved: true })).toEqual({ verdict: 'run' });
    expect(decideToolCall({ policy: { effect: 'require_approval', enforced: true, policy_uid: 'p', policy_name: 'Ask' }, mode: { mode: 'always', requires: true }, sessionApproved: true })).toEqual({
      verdict: 'approval',
      reasons: [{ source: 'policy', policy_uid: 'p' }],
    });
  });
  it('shadow (not enforced) policies change nothing; mode never runs', () => {
    expect(decideToolCall({ policy: { effect: 'deny', enforced: false, policy_uid: 'p', policy_name: 'No' }, mode: { mode: 'never', requires: false }, sessionApproved: false })).toEqual({ verdict: 'run' });
  });
});

describe('readResolveInput', () => {
  it('decision is required; aliases map; scope and reason are checked', () => {
    expect(code(() => readResolveInput({}))).toBe('400 missing_field');
    expect(code(() => readResolveInput({ decision: 'yes' }))).toBe('400 invalid_field');
    expect(code(() => readResolveInput({ decision: 'allow', scope: 'forever' }))).toBe('400 invalid_field');
    expect(code(() => readResolveInput({ decision: 'allow', reason: 'x'.repeat(1001) }))).toBe('400 invalid_field');
    expect(readResolveInput({ decision: 'approve' })).toEqual({ decision: 'approved', reason: null, scope: 'once' });
    expect(readResolveInput({ decision: 'reject', reason: 'no', scope: 'session' })).toEqual({ decision: 'denied', reason: 'no', scope: 'session' });
  });
});

describe('settling an approval', () => {
  const by = { kind: 'user', id: 'u1' };
  it('pending → approved | denied; once settled, or past its expiry, 409 invalid_transition with from_status', () => {
    const r = decideResolve(pending(), { decision: 'approved', reason: null, scope: 'session' }, by, 120);
    expect(r).toMatchObject({ approval_id: 'ap1', status: 'approved', scope: 'session', resolved_by: by, at: 120 });
    // a denial never widens to the session
    expect(decideResolve(pending(), { decision: 'denied', reason: 'no', scope: 'session' }, by, 120).scope).toBe('once');
    const approved = settledApproval(pending(), { type: 'ToolApprovalResolved', data: r });
    expect(approved).toMatchObject({ status: 'approved', resolved_at: 120, scope: 'session' });
    let err: DomainError | null = null;
    try {
      decideResolve(approved, { decision: 'denied', reason: null, scope: 'once' }, by, 130);
    } catch (e) {
      err = e as DomainError;
    }
    expect(err?.toBody()).toMatchObject({ code: 'invalid_transition', from_status: 'approved' });
    expect(code(() => decideResolve(pending(), { decision: 'approved', reason: null, scope: 'once' }, by, 160))).toBe('409 invalid_transition');
  });
  it('expires only pending approvals past expires_at; cancels only pending ones', () => {
    expect(decideExpire(pending(), 159)).toBeNull();
    expect(decideExpire(pending(), 160)).toMatchObject({ approval_id: 'ap1', at: 160 });
    expect(decideExpire(pending({ status: 'approved' }), 500)).toBeNull();
    // swept late, the expiry is still dated at expires_at
    expect(decideExpire(pending(), 163)).toMatchObject({ at: 160 });
    expect(decideCancel(pending(), 'interrupted', 130)).toMatchObject({ reason: 'interrupted' });
    expect(decideCancel(pending({ status: 'denied' }), 'interrupted', 130)).toBeNull();
  });
  it('reads as expired from the instant expires_at comes, exactly as the expiry event will record it', () => {
    expect(approvalAt(pending(), 159)).toEqual(pending());
    const read = approvalAt(pending(), 160);
    expect(read).toMatchObject({ status: 'expired', resolved_at: 160, resolved_by: { kind: 'system', id: 'system' }, resolution_reason: 'expired', scope: 'once' });
    expect(settledApproval(pending(), { type: 'ToolApprovalExpired', data: decideExpire(pending(), 164)! })).toEqual(read);
    // settled ones are what they are, whatever the clock
    const approved = pending({ status: 'approved', resolved_at: 120 });
    expect(approvalAt(approved, 500)).toBe(approved);
    expect(approvalOutcomeError(read)?.code).toBe('approval_expired');
  });
  it('the Approval node reads denied for expired and cancelled ones, with the reason; the model gets the matching tool error', () => {
    const expired = settledApproval(pending(), { type: 'ToolApprovalExpired', data: decideExpire(pending(), 170)! });
    expect(approvalNodeResolution(expired)).toEqual({ status: 'denied', decided_at: 160, decided_by: 'system', reason: 'expired' });
    expect(approvalOutcomeError(expired)?.code).toBe('approval_expired');
    const cancelled = settledApproval(pending(), { type: 'ToolApprovalCancelled', data: decideCancel(pending(), 'connection_deleted', 130)! });
    expect(approvalNodeResolution(cancelled)).toMatchObject({ status: 'denied', reason: 'cancelled: connection_deleted' });
    const denied = settledApproval(pending(), { type: 'ToolApprovalResolved', data: decideResolve(pending(), { decision: 'denied', reason: 'no', scope: 'once' }, by, 120) });
    expect(approvalNodeResolution(denied)).toEqual({ status: 'denied', decided_at: 120, decided_by: 'user:u1', reason: 'no' });
    expect(approvalOutcomeError(denied)?.code).toBe('approval_denied');
    expect(approvalOutcomeError(settledApproval(pending(), { type: 'ToolApprovalResolved', data: decideResolve(pending(), { decision: 'approved', reason: null, scope: 'once' }, by, 120) }))).toBeNull();
  });
});
