import type { NodeRecord } from '../records';
import { approvalAt, approvalNodeResolution, expiredAt } from './approval-decider';
import type { ToolApprovalRecord } from './approval-events';

/**
 * A tool approval's Approval node as read at `now` (seconds). Once the approval's `expires_at`
 * has come while the node still says `pending`, it reads as the expiry sweep will write it
 * (`denied`, reason `expired`, decided by the system at `expires_at`): what a client reads
 * changes at `expires_at`, not at the sweep that records the event after it. Any other node,
 * or an Approval node without its approval (one of `/agent/governance`), is returned as it is.
 */
export function approvalNodeAt<T extends Pick<NodeRecord, 'node_type' | 'props'>>(node: T, approval: ToolApprovalRecord | null, now: number): T {
  if (node.node_type !== 'Approval' || node.props.status !== 'pending' || !approval || !expiredAt(approval, now)) return node;
  return { ...node, props: { ...node.props, ...approvalNodeResolution(approvalAt(approval, now)) } };
}
