import * as path from 'node:path';
import type { ActivityStore } from '@strata/auth/activity/activity-store.port';
import { SqliteActivityStore } from '@strata/auth/activity/sqlite-activity-store';
import type { Clock, IdGenerator } from '@strata/domain/time';
import type { DocumentLedger } from '@strata/extraction/ledger/document-ledger.port';
import { SqliteDocumentLedger } from '@strata/extraction/ledger/sqlite-document-ledger';
import type { JobQueue } from '@strata/jobs/queue/job-queue.port';
import { SqliteJobQueue } from '@strata/jobs/queue/sqlite-job-queue';
import { MongoClient } from 'mongodb';
import type { ScheduleStore } from '@strata/jobs/schedules/schedule-store.port';
import { SqliteScheduleStore } from '@strata/jobs/schedules/sqlite-schedule-store';
import type { JobStore } from '@strata/jobs/store/job-store.port';
import { SqliteJobStore } from '@strata/jobs/store/sqlite-job-store';
import type { StrataConfig } from '../config/strata-config';
import { MongoSecretStore } from '../secrets/mongo-secret-store';
import type { SecretStore } from '../secrets/secret-store.port';
import { secretCipherFor } from '../secrets/secrets-key';
import { SqliteSecretStore } from '../secrets/sqlite-secret-store';
import { OPS_FILE } from './embedded-storage';
import type { ServerStores } from './server-stores';

/** The secret store with what closes it (its database, or its own MongoDB client). */
export interface OwnedSecretStore {
  readonly store: SecretStore;
  close(): Promise<void>;
}

/** Provider token of {@link OpsStores}. */
export const OPS_STORES = Symbol('OPS_STORES');

/**
 * The operational stores beside the event log (jobs, their queue and schedules, API-key
 * activity, the document ledger) and the secret store, bound to their adapters here with the
 * other storage ports: `ops.db` (and `secrets.db`) beside the data on the embedded default, the
 * shared servers in servers mode.
 *
 * Each is opened when first asked for, so a process that runs no jobs and serves no requests
 * (the CLI's application context) never opens `ops.db`. The module that asks for a store owns
 * it and closes it, except the servers' own (`jobs`, `activity`), which close with the servers.
 */
export class OpsStores {
  private readonly opened = new Map<string, unknown>();

  constructor(
    private readonly config: Pick<StrataConfig, 'dataDir' | 'store' | 'mongoUrl' | 'mongoDb' | 'mcp'>,
    private readonly servers: ServerStores | null,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** whether the stores are the servers' (closed with them) rather than this process's own */
  get shared(): boolean {
    return this.servers !== null;
  }

  jobs(): JobStore {
    return this.once('jobs', () => this.servers?.jobs ?? new SqliteJobStore(this.opsFile));
  }

  jobQueue(): JobQueue {
    return this.once('jobQueue', () => this.servers?.jobQueue(this.clock, this.ids) ?? new SqliteJobQueue(this.opsFile, this.clock, this.ids));
  }

  schedules(): ScheduleStore {
    return this.once('schedules', () => this.servers?.scheduleStore() ?? new SqliteScheduleStore(this.opsFile));
  }

  activity(): ActivityStore {
    return this.once('activity', () => this.servers?.activity ?? new SqliteActivityStore(this.opsFile));
  }

  documentLedger(): DocumentLedger {
    return this.once('documentLedger', () => this.servers?.documentLedger() ?? new SqliteDocumentLedger(this.opsFile));
  }

  /**
   * Secrets sealed under STRATA_SECRETS_KEY (MCP credentials, webhook signing secrets), kept
   * out of the event log. Servers mode keeps them in MongoDB through a client of their own,
   * closed with the store; the servers-mode test harness, which has no MongoDB, keeps them
   * embedded.
   */
  secrets(): OwnedSecretStore {
    return this.once('secrets', () => {
      const cfg = this.config;
      const servers = cfg.store === 'servers' && !!cfg.mongoUrl;
      const cipher = secretCipherFor({ store: servers ? 'servers' : 'embedded', dataDir: cfg.dataDir, secretsKey: cfg.mcp.secretsKey, secretsKeyPrevious: cfg.mcp.secretsKeyPrevious });
      if (!servers) {
        const s = new SqliteSecretStore(cfg.dataDir, cipher);
        return { store: s, close: async () => s.close() };
      }
      // connected by the driver on first use: a replica starts while MongoDB is still coming up
      const mongo = new MongoClient(cfg.mongoUrl!, { appName: 'strata-secrets' });
      return { store: new MongoSecretStore(mongo.db(cfg.mongoDb), cipher), close: () => mongo.close() };
    });
  }

  private get dataDir(): string {
    return this.config.dataDir;
  }

  private get opsFile(): string {
    return path.join(this.dataDir, OPS_FILE);
  }

  private once<T>(name: string, open: () => T): T {
    if (!this.opened.has(name)) this.opened.set(name, open());
    return this.opened.get(name) as T;
  }
}
