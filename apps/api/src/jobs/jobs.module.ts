import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import * as path from 'node:path';
import { CLOCK, Clock, ID_GENERATOR, IdGenerator } from '@strata/domain/time';
import { OPS_FILE } from '@strata/platform/storage/embedded-storage';
import { STRATA_CONFIG, StrataConfig } from '@strata/platform/config/strata-config';
import { SERVER_STORAGE } from '@strata/platform/storage/storage.tokens';
import type { ServerStores } from '@strata/platform/storage/server-stores';
import { JobRegistry } from '@strata/jobs/job-registry';
import { JobsController } from './jobs.controller';
import { JOB_STORE, JobStore } from '@strata/jobs/store/job-store.port';
import { SqliteJobStore } from '@strata/jobs/store/sqlite-job-store';

/** Background jobs: global, so that the areas that start jobs and `POST /clear` share one registry. */
@Global()
@Module({
  controllers: [JobsController],
  providers: [
    {
      provide: JOB_STORE,
      inject: [STRATA_CONFIG, SERVER_STORAGE],
      // embedded: ops.db beside the data; servers: MongoDB, shared by the replicas
      useFactory: (cfg: StrataConfig, servers: ServerStores | null): JobStore => servers?.jobs ?? new SqliteJobStore(path.join(cfg.dataDir, OPS_FILE)),
    },
    {
      provide: JobRegistry,
      inject: [CLOCK, ID_GENERATOR, JOB_STORE, SERVER_STORAGE],
      useFactory: (clock: Clock, ids: IdGenerator, store: JobStore, servers: ServerStores | null) => new JobRegistry(clock, ids, store, { ownsAllJobs: !servers }),
    },
  ],
  exports: [JobRegistry],
})
export class JobsModule implements OnApplicationShutdown {
  constructor(
    private readonly jobs: JobRegistry,
    @Inject(JOB_STORE) private readonly store: JobStore,
    @Inject(SERVER_STORAGE) private readonly servers: ServerStores | null,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.jobs.flush();
    // the servers' store belongs to the server storage, which closes its client
    if (!this.servers) await this.store.close();
  }
}
