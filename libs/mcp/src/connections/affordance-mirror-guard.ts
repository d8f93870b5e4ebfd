import { Errors } from '@strata/domain/errors';
import { GraphTx } from '@strata/platform/unit-of-work/graph-tx';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';

/**
 * An MCP tool's Affordance mirrors the registry (REFERENCE §15.8): only its connection's syncs
 * change it. A graph route that would (PATCH, `/evolve update` or `tombstone`, `DELETE /node`,
 * a restore, a batch) is 409 `invalid_transition`; syncs run on `/v1` routes or in jobs.
 */
export function guardAffordanceMirrors(reads: McpReadModel) {
  return async (tx: GraphTx): Promise<void> => {
    const http = tx.ctx.http;
    if (!http || http.path === '/v1' || http.path.startsWith('/v1/') || !tx.hasChanges()) return;
    for (const e of tx.stagedEvents()) {
      if ((e.type !== 'NodeUpdated' && e.type !== 'NodeTombstoned' && e.type !== 'NodeRestored') || e.data.node.node_type !== 'Affordance') continue;
      const tool = reads.mirroredTool(tx.org, e.data.node.uid);
      if (!tool) continue;
      const c = reads.connection(tx.org, tool.connection_id);
      throw Errors.invalidTransition(`Affordance ${e.data.node.uid} mirrors the tool ${tool.name} of MCP connection ${c?.name ?? tool.connection_id}; only its syncs change it`, null, []);
    }
  };
}
