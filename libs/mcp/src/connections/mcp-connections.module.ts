import { Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { SECRET_STORE } from '@strata/platform/secrets/secret-store.port';
import { OPS_STORES, OpsStores } from '@strata/platform/storage/ops-stores';
import { ConnectionCredentials } from './connection-credentials';
import { ConnectionSync } from './connection-sync.service';
import { ConnectionTools } from './connection-tools.service';
import { McpNetwork } from './mcp-network';
import { McpOAuth } from './oauth/mcp-oauth.service';
import { guardAffordanceMirrors } from './affordance-mirror-guard';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';

/**
 * MCP connections without HTTP: the read model, the secret store, the network rules, syncs
 * and tool calls. The API's MCP area composes it; so can any area whose agents call tools
 * (`ConnectionTools`).
 */
@Module({
  providers: [
    { provide: SECRET_STORE, inject: [OPS_STORES], useFactory: (ops: OpsStores) => ops.secrets().store },
    {
      provide: McpReadModel,
      // the MCP projection: in the projections database (embedded), or this replica's mirror (servers)
      inject: [EMBEDDED_STORAGE, { token: AccountsMirror, optional: true }],
      useFactory: (e: EmbeddedStorage | null, m: AccountsMirror | null) => (e ? new McpReadModel(e.projections) : m!.mcpReadModel),
    },
    McpNetwork,
    McpOAuth,
    ConnectionCredentials,
    ConnectionSync,
    ConnectionTools,
  ],
  exports: [SECRET_STORE, McpReadModel, McpNetwork, McpOAuth, ConnectionCredentials, ConnectionSync, ConnectionTools],
})
export class McpConnectionsModule implements OnApplicationShutdown {
  constructor(
    @Inject(OPS_STORES) private readonly ops: OpsStores,
    @Inject(UNIT_OF_WORK) uow: UnitOfWork,
    reads: McpReadModel,
  ) {
    uow.addCommitCheck(guardAffordanceMirrors(reads));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.ops.secrets().close().catch((err) => new Logger('McpConnections').warn(`closing the secret store: ${(err as Error).message}`));
  }
}
