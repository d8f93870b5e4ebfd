import { Inject, Logger, Module, OnApplicationShutdown } from '@nestjs/common';
import { MongoClient } from 'mongodb';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { EmbeddedStorage } from '@strata/platform/storage/embedded-storage';
import { EMBEDDED_STORAGE } from '@strata/platform/storage/storage.tokens';
import { AccountsMirror } from '@strata/projections/accounts/accounts-mirror';
import { McpReadModel } from '@strata/projections/mcp/mcp-read-model';
import { MongoSecretStore } from '../secrets/mongo-secret-store';
import { SECRET_STORE, SecretStore } from '../secrets/secret-store.port';
import { secretCipherFor } from '../secrets/secrets-key';
import { SqliteSecretStore } from '../secrets/sqlite-secret-store';
import { ConnectionCredentials } from './connection-credentials';
import { ConnectionSync } from './connection-sync.service';
import { ConnectionTools } from './connection-tools.service';
import { McpNetwork } from './mcp-network';
import { McpOAuth } from './oauth/mcp-oauth.service';
import { guardAffordanceMirrors } from './affordance-mirror-guard';
import { UNIT_OF_WORK, UnitOfWork } from '@strata/platform/unit-of-work/unit-of-work.port';

/** Servers mode: the secret store's own MongoDB client, closed with the process. */
class ClosableSecretStore {
  constructor(
    readonly store: SecretStore,
    readonly close: () => Promise<void>,
  ) {}
}

/**
 * MCP connections without HTTP: the read model, the secret store, the network rules, syncs
 * and tool calls. The API's MCP area composes it; so can any area whose agents call tools
 * (`ConnectionTools`).
 */
@Module({
  providers: [
    {
      provide: ClosableSecretStore,
      inject: [STRATA_CONFIG],
      useFactory: async (cfg: StrataConfig) => {
        // the servers-mode test harness runs without MongoDB: its secrets stay embedded
        const servers = cfg.store === 'servers' && !!cfg.mongoUrl;
        const cipher = secretCipherFor({ store: servers ? 'servers' : 'embedded', dataDir: cfg.dataDir, secretsKey: cfg.mcp.secretsKey, secretsKeyPrevious: cfg.mcp.secretsKeyPrevious });
        if (!servers) {
          const s = new SqliteSecretStore(cfg.dataDir, cipher);
          return new ClosableSecretStore(s, async () => s.close());
        }
        // connected by the driver on first use: a replica starts while MongoDB is still coming up
        const mongo = new MongoClient(cfg.mongoUrl!, { appName: 'strata-secrets' });
        return new ClosableSecretStore(new MongoSecretStore(mongo.db(cfg.mongoDb), cipher), () => mongo.close());
      },
    },
    { provide: SECRET_STORE, inject: [ClosableSecretStore], useFactory: (c: ClosableSecretStore) => c.store },
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
    @Inject(ClosableSecretStore) private readonly secrets: ClosableSecretStore,
    @Inject(UNIT_OF_WORK) uow: UnitOfWork,
    reads: McpReadModel,
  ) {
    uow.addCommitCheck(guardAffordanceMirrors(reads));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.secrets.close().catch((err) => new Logger('McpConnections').warn(`closing the secret store: ${(err as Error).message}`));
  }
}
