import { approvalNodeAt } from './approval-node';
import type { ToolApprovalRecord } from './approval-events';

const approval = (over: Partial<ToolApprovalRecord> = {}) =>
  ({ id: 'a1', status: 'pending', requested_at: 100, expires_at: 160, resolved_at: null, resolved_by: null, resolution_reason: null, scope: 'once', ...over }) as ToolApprovalRecord;
const node = (props: Record<string, unknown>, node_type = 'Approval') => ({ node_type, props: { _type: node_type, ...props } });

describe('approvalNodeAt: an Approval node as read at a time', () => {
  const pending = node({ status: 'pending', target_type: 'mcp_tool', requested_at: 100, reason: 'the connection asks approval for every call' });

  it('is the stored node before expires_at', () => {
    expect(approvalNodeAt(pending, approval(), 159.999)).toBe(pending);
  });

  it('reads as the sweep writes it from expires_at on: denied for the reason expired, decided by the system at expires_at', () => {
    for (const now of [160, 161, 10_000]) {
      expect(approvalNodeAt(pending, approval(), now).props).toEqual({ _type: 'Approval', status: 'denied', target_type: 'mcp_tool', requested_at: 100, decided_at: 160, decided_by: 'system', reason: 'expired' });
    }
    expect(pending.props).toMatchObject({ status: 'pending' });
  });

  it('leaves alone a settled approval, a node without its approval, a settled node and other node types', () => {
    expect(approvalNodeAt(pending, approval({ status: 'approved' }), 1_000)).toBe(pending);
    expect(approvalNodeAt(pending, null, 1_000)).toBe(pending);
    const settled = node({ status: 'approved' });
    expect(approvalNodeAt(settled, approval(), 1_000)).toBe(settled);
    const task = node({ status: 'pending' }, 'Task');
    expect(approvalNodeAt(task, approval(), 1_000)).toBe(task);
  });
});
