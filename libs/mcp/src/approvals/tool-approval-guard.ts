import { Errors } from '@strata/domain/errors';
import { TOOL_APPROVAL_TARGET_TYPES } from '@strata/domain/mcp';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';

/**
 * A tool approval's Approval node follows its record (REFERENCE §15.10): a graph route that
 * would change its status (`/agent/governance resolve_approval`, PATCH, `/evolve update`) is
 * 409 `invalid_transition`; it is resolved through `/v1/mcp/approvals/{id}/resolve`.
 */
export async function guardToolApprovalNodes(tx: GraphTx): Promise<void> {
  const http = tx.ctx.http;
  if (!http || http.path === '/v1' || http.path.startsWith('/v1/') || !tx.hasChanges()) return;
  for (const e of tx.stagedEvents()) {
    if (e.type !== 'NodeUpdated' || e.data.node.node_type !== 'Approval') continue;
    const before = (tx.storedNode(e.data.node.uid) ?? (await tx.node(e.data.node.uid)))?.props as Record<string, unknown> | undefined;
    if (!before || !TOOL_APPROVAL_TARGET_TYPES.includes(before.target_type as string)) continue;
    const after = e.data.node.props as Record<string, unknown>;
    if (after.status !== before.status)
      throw Errors.invalidTransition(`approval ${e.data.node.uid} gates a tool call; resolve it with POST /v1/mcp/approvals/${e.data.node.uid}/resolve`, (before.status as string) ?? null, []);
  }
}
